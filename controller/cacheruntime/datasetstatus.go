package cacheruntime

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// The Dataset's status, as the runtime bound to it (or binding it) reports
// it. This controller writes the Dataset's Ready condition,
// status.runtimes, status.mounts, status.cacheStates, ufsTotal and
// fileNum, in one write per reconcile (writeDataset); Fluid's phase is
// derived from Ready (datasetPhase). The Dataset controller only fills the
// phase of a new Dataset (NotBound), and a DataMigrate's reconciler sets
// DataMigrating while it writes the Dataset, which the phase keeps; each
// writes with the Dataset's resourceVersion as its precondition, so none
// replaces another's write (docs/design/dataset-phases.md lists them all).

// datasetStatus is the Dataset's status after a reconcile of its runtime rt
// that observed o, from the status as stored: Ready says why the runtime
// cannot serve the Dataset's current spec (the engine's or Helm's reason:
// phase Failed), that a change of its mounts is being applied (Updating)
// or failed to apply (MountsFailed, Failed), or that it is bound (Bound,
// with status.runtimes and the mounts applied in status.mounts); a
// Dataset whose runtime failed before binding returns to NotBound once the
// runtime starts again. The cache figures and the usage observed are
// reported too (cacheStates; ufsTotal and fileNum, usageStatus). A Dataset
// not found, or bound to another runtime, is not this runtime's to report.
func datasetStatus(ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject, runtimeType string, o observations) datav1alpha1.DatasetStatus {
	s := *ds.Status.DeepCopy()
	if d := o.datasetFound; d == nil || !d.exists || d.boundElsewhere != "" {
		return s
	}
	runtime := runtimeType + " runtime " + rt.GetName()
	set := func(status metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: status, Reason: reason,
			Message: datav1alpha1.ConditionMessage(message), ObservedGeneration: ds.Generation})
	}
	m := o.mounts
	switch {
	case o.engine != nil && o.engine.reason != "":
		set(metav1.ConditionFalse, o.engine.reason, runtime+": "+o.engine.message)
	case o.volumeConflict != "":
		set(metav1.ConditionFalse, ReasonVolumeConflict, o.volumeConflict)
	case m != nil && m.pending && m.failed != "":
		set(metav1.ConditionFalse, ReasonMountsFailed, fmt.Sprintf("%s could not apply the Dataset's mounts: %s", runtime, m.failed))
	case m != nil && m.pending && m.waiting != "":
		set(metav1.ConditionFalse, ReasonUpdating, fmt.Sprintf("%s is applying the Dataset's mounts: waiting for %s", runtime, m.waiting))
	case o.bound || m != nil && boundTo(ds, rt, runtimeType):
		// Bound now, or bound before and serving the Dataset's mounts.
		s.Runtimes = []datav1alpha1.Runtime{{Name: rt.GetName(), Namespace: rt.GetNamespace(), Type: runtimeType, Category: datav1alpha1.AccelerateCategory}}
		if m != nil {
			s.Mounts = m.spec
		}
		set(metav1.ConditionTrue, ReasonBound, "bound to "+runtime)
	case o.engine != nil && !boundTo(ds, rt, runtimeType) && datasetPhase(&s) == datav1alpha1.FailedDatasetPhase:
		set(metav1.ConditionFalse, ReasonNotBound, "waiting for "+runtime+" to start")
	}
	s.Phase = datasetPhase(&s)
	if o.cacheStates != nil {
		s.CacheStates = o.cacheStates
	}
	s.UfsTotal, s.FileNum = usageStatus(&s, o)
	return s
}

// usageStatus is the Dataset's ufsTotal and fileNum after a reconcile that
// observed o, from the status s as stored: the usage counted, as Fluid
// writes it; Calculating while a metadata Job counts a Dataset whose
// figures are not both known; otherwise as stored.
func usageStatus(s *datav1alpha1.DatasetStatus, o observations) (ufsTotal, fileNum string) {
	switch {
	case o.usage != nil:
		return engines.FormatUFSTotal(o.usage.Bytes), strconv.FormatInt(o.usage.Files, 10)
	case o.calculating && (s.UfsTotal == "" || s.FileNum == ""):
		return Calculating, Calculating
	}
	return s.UfsTotal, s.FileNum
}

// datasetPhase is Fluid's phase for a Dataset status, from its Ready
// condition: Bound when True, Updating or NotBound for those reasons (and
// NotBound after its runtime was deleted), Failed for any other (the
// reason of the runtime that cannot serve it). DataMigrating, which a
// DataMigrate's reconciler sets and clears, is kept; without a Ready
// condition the phase is left as it is.
func datasetPhase(s *datav1alpha1.DatasetStatus) datav1alpha1.DatasetPhase {
	ready := meta.FindStatusCondition(s.Conditions, ConditionReady)
	switch {
	case s.Phase == datav1alpha1.DataMigratingDatasetPhase, ready == nil:
		return s.Phase
	case ready.Status == metav1.ConditionTrue:
		return datav1alpha1.BoundDatasetPhase
	case ready.Reason == ReasonUpdating:
		return datav1alpha1.UpdatingDatasetPhase
	case ready.Reason == ReasonNotBound, ready.Reason == ReasonRuntimeDeleted:
		return datav1alpha1.NotBoundDatasetPhase
	}
	return datav1alpha1.FailedDatasetPhase
}

// datasetEvent is the Event for the Dataset's Ready going from prev to
// next, if any: a change of its mounts starts being applied (Normal
// Updating) or is applied (Normal MountsApplied), or the runtime fails
// (Warning, with the reason). A first binding is the runtime's event.
func datasetEvent(prev, next *metav1.Condition) (readyNote, bool) {
	if next == nil || prev != nil && prev.Status == next.Status && prev.Reason == next.Reason {
		return readyNote{}, false
	}
	switch {
	case next.Reason == ReasonUpdating:
		return readyNote{typ: corev1.EventTypeNormal, reason: ReasonUpdating, note: next.Message}, true
	case next.Status == metav1.ConditionTrue && prev != nil && prev.Reason == ReasonUpdating:
		return readyNote{typ: corev1.EventTypeNormal, reason: "MountsApplied", note: "the Dataset's mounts are applied; " + next.Message}, true
	case next.Status == metav1.ConditionFalse && next.Reason != ReasonNotBound && next.Reason != ReasonRuntimeDeleted:
		return readyNote{typ: corev1.EventTypeWarning, reason: next.Reason, note: next.Message}, true
	}
	return readyNote{}, false
}

// unboundDatasetStatus is the Dataset's status once its runtime is
// deleted: NotBound, without runtimes, cache states, mounts or the usage
// the runtime counted (ufsTotal and fileNum, counted again by the next).
func unboundDatasetStatus(ds *datav1alpha1.Dataset, rt datav1alpha1.RuntimeObject, runtimeType string) datav1alpha1.DatasetStatus {
	s := *ds.Status.DeepCopy()
	s.Phase, s.Runtimes, s.CacheStates, s.Mounts = datav1alpha1.NotBoundDatasetPhase, nil, nil, nil
	s.UfsTotal, s.FileNum = "", ""
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonRuntimeDeleted,
		Message: fmt.Sprintf("%s runtime %s was deleted", runtimeType, rt.GetName()), ObservedGeneration: ds.Generation})
	return s
}

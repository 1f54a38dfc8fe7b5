package cacheruntime

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
)

// writeStatus writes the status computed from the scope's observations
// over the status as stored, if it changed (needsWrite), in one merge
// patch of the fields that changed, with the runtime's resourceVersion as
// read as its precondition (statuspatch.Write). This controller alone
// writes runtime status, so a refused patch means the cache was behind:
// most often behind this controller's own last write. The runtime is then
// read from the API server, and the status computed again over the stored
// one: a change the last write already made is neither written nor
// announced twice. Ready's transitions are recorded as Events once
// written.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) error {
	prev, written, err := statuspatch.Write(ctx, r.Client, r.reader(), s.rt, func(rt datav1alpha1.RuntimeObject) bool {
		next := runtimeStatus(rt.GetRuntimeStatus(), s.obs)
		if !needsWrite(rt.GetRuntimeStatus(), next, s.obs.now) {
			return false
		}
		*rt.GetRuntimeStatus() = *next
		return true
	})
	if written == nil {
		return client.IgnoreNotFound(err)
	}
	r.writes.Wrote(client.ObjectKeyFromObject(written), prev.GetResourceVersion(), written.DeepCopyObject().(datav1alpha1.RuntimeObject))
	ready := func(rt datav1alpha1.RuntimeObject) *metav1.Condition {
		return meta.FindStatusCondition(rt.GetRuntimeStatus().Conditions, ConditionReady)
	}
	if e, ok := readyEvent(ready(prev), ready(written)); ok {
		r.event(s.rt, e.typ, e.reason, "Reconcile", "%s", e.note)
	}
	return nil
}

// writeDataset writes the Dataset's status that status computes from the
// Dataset as stored (datasetStatus at the end of a reconcile,
// unboundDatasetStatus once the runtime is deleted), if it changed, in one
// merge patch with the Dataset's resourceVersion as read as its
// precondition (statuspatch.Write): other parties write the Dataset's
// status too (docs/design/dataset-phases.md), and none of their writes may
// be replaced. A refused patch reads the Dataset from the API server and
// computes the status again over it, once. This is the runtime
// controller's only write of the Dataset's status, at most one per
// reconcile. The Dataset's Ready transitions worth telling are recorded as
// Events (datasetEvent).
func (r *Reconciler) writeDataset(ctx context.Context, ds *datav1alpha1.Dataset, status func(*datav1alpha1.Dataset) datav1alpha1.DatasetStatus) error {
	prev, written, err := statuspatch.Write(ctx, r.Client, r.reader(), ds, statuspatch.DatasetStatus(status))
	if written == nil {
		return client.IgnoreNotFound(err)
	}
	if e, ok := datasetEvent(meta.FindStatusCondition(prev.Status.Conditions, ConditionReady), meta.FindStatusCondition(written.Status.Conditions, ConditionReady)); ok {
		r.event(written, e.typ, e.reason, "Reconcile", "%s", e.note)
	}
	return nil
}

package cacheruntime

import (
	"github.com/sluice-data/sluice/controller/internal/rootcond"

	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// observations are what one reconcile saw that the runtime's status
// reports: the input of runtimeStatus. A nil field was not observed this
// round (an earlier phase stopped the reconcile), and the status keeps what
// it said.
type observations struct {
	// now is the reconcile's clock: condition transitions and the
	// progress throttle (progressEvery).
	now time.Time
	// generation is the runtime's metadata.generation as read.
	generation int64
	// dataset names the Dataset ("namespace/name") in messages.
	dataset string
	// inUse names the Pods that hold the runtime's deletion back.
	inUse []string
	// datasetFound says whether the Dataset exists and whom it is bound to.
	datasetFound *datasetFound
	// engine is the engine's and Helm's verdict on the release.
	engine *engineVerdict
	// components are the release's workloads.
	components *componentCounts
	// bound: the PVC and PV exist and the Dataset is Bound to the runtime.
	bound bool
	// volumeConflict says which PVC or PV of the Dataset's name Sluice did
	// not create, "" when none.
	volumeConflict string
	// volumeGoing says which of the Dataset's PVC and PV is being deleted
	// (to be created anew), "" when none.
	volumeGoing string
	// cacheAffinity is where the cache is (labelNodes): the runtime's
	// status.cacheAffinity.
	cacheAffinity *observedAffinity
	// cacheStates are the figures read from the engine's metrics: the
	// runtime's and the Dataset's status.cacheStates.
	cacheStates datav1alpha1.CacheStateList
	// usage is the Dataset's usage of its under storage learnt this
	// reconcile (syncMetadata): its ufsTotal and fileNum.
	usage *engines.UFSUsage
	// calculating: a metadata Job started counting the Dataset; its
	// ufsTotal and fileNum show Calculating while either is unknown.
	calculating bool
	// cleanup is the deletion's cache cleanup (CacheCleaned), nil when
	// none was observed.
	cleanup *verdict
	// mounts are the Dataset's mounts and whether a change of them is
	// applied (observeMounts).
	mounts *mountSync
}

// observedAffinity is the cacheAffinity observed; affinity nil says that
// nothing is known of where the cache is, and clears the status field.
type observedAffinity struct {
	affinity *corev1.NodeAffinity
}

// datasetFound is what the reconcile found of the Dataset.
type datasetFound struct {
	exists bool
	// boundElsewhere names the other runtime the Dataset is bound to.
	boundElsewhere string
}

// engineVerdict is why the release is not installed and in sync (an
// engine error's reason, or ReleaseFailed), "" when it is.
type engineVerdict struct {
	reason, message string
}

// componentCounts are the release's workloads as observed.
type componentCounts struct {
	// masters and workers are nil when the engine runs none.
	masters, workers *counts
	// selector is the worker StatefulSet's selector, nil without one.
	selector *string
	// fuse is the FUSE DaemonSet's status, nil without one.
	fuse *appsv1.DaemonSetStatus
	// gateway is where the release's REST gateway listens
	// (engines.Gateway), "" when it runs none.
	gateway string
}

// counts are one StatefulSet's observed figures.
type counts struct {
	desired, current, ready, available int32
	phase                              datav1alpha1.RuntimePhase
	// done: every desired replica is ready in the current generation.
	done bool
	// name is the StatefulSet's; mounts its engines.MountsAnnotation (the
	// Dataset mounts it was rendered for), "" when it has none.
	name, mounts string
	// rolling: the StatefulSet controller has not yet observed its
	// generation, or has not yet replaced every pod by one of the current
	// template (its current revision is not its update revision).
	rolling bool
}

// observeStatefulSet reads a StatefulSet's counts; nil (not created yet)
// is not ready.
func observeStatefulSet(sts *appsv1.StatefulSet) counts {
	if sts == nil {
		return counts{phase: datav1alpha1.RuntimePhaseNotReady}
	}
	desired := int32(1)
	if sts.Spec.Replicas != nil {
		desired = *sts.Spec.Replicas
	}
	st := sts.Status
	return counts{
		desired: desired, current: st.Replicas, ready: st.ReadyReplicas, available: st.AvailableReplicas,
		phase: workerPhase(st.ReadyReplicas, desired),
		done:  st.ReadyReplicas >= desired && st.ObservedGeneration >= sts.Generation,
		name:  sts.Name, mounts: sts.Annotations[engines.MountsAnnotation],
		rolling: st.ObservedGeneration < sts.Generation || st.UpdateRevision != "" && st.CurrentRevision != st.UpdateRevision,
	}
}

// runtimeStatus is the runtime's status after a reconcile that observed o,
// starting from prev (the status as stored): the counts and Fluid's phase
// fields of what was observed, the root conditions and Ready summarising
// them, and observedGeneration.
func runtimeStatus(prev *datav1alpha1.RuntimeStatus, o observations) *datav1alpha1.RuntimeStatus {
	s := prev.DeepCopy()
	s.ObservedGeneration = o.generation
	if c := o.components; c != nil {
		if m := c.masters; m != nil {
			s.DesiredMasterNumberScheduled, s.CurrentMasterNumberScheduled, s.MasterNumberReady = m.desired, m.current, m.ready
			s.MasterPhase = m.phase
		}
		if w := c.workers; w != nil {
			s.DesiredWorkerNumberScheduled, s.CurrentWorkerNumberScheduled, s.WorkerNumberReady = w.desired, w.current, w.ready
			s.WorkerNumberAvailable, s.WorkerNumberUnavailable = w.available, max(0, w.desired-w.available)
			s.WorkerPhase = w.phase
			if c.selector != nil {
				s.Selector = *c.selector
			}
		}
		s.APIGateway = datav1alpha1.APIGatewayStatus{Endpoint: c.gateway}
		if f := c.fuse; f != nil {
			s.DesiredFuseNumberScheduled, s.CurrentFuseNumberScheduled, s.FuseNumberReady = f.DesiredNumberScheduled, f.CurrentNumberScheduled, f.NumberReady
			s.FuseNumberAvailable, s.FuseNumberUnavailable = f.NumberAvailable, f.NumberUnavailable
			s.FusePhase = workerPhase(f.NumberReady, f.DesiredNumberScheduled)
		}
	}
	if o.cacheAffinity != nil {
		s.CacheAffinity = o.cacheAffinity.affinity.DeepCopy()
	}
	if o.cacheStates != nil {
		s.CacheStates = o.cacheStates
	}
	if m := o.mounts; m != nil && m.record && (!engines.SameMounts(s.Mounts, m.desired) || s.MountTime == nil) {
		s.Mounts, s.MountTime = m.desired, &metav1.Time{Time: o.now}
	}
	s.Conditions = conditions(s.Conditions, o)
	return s
}

// workerPhase derives a component phase (Fluid's masterPhase, workerPhase,
// fusePhase) from ready and desired counts.
func workerPhase(ready, desired int32) datav1alpha1.RuntimePhase {
	switch {
	case ready >= desired:
		return datav1alpha1.RuntimePhaseReady
	case ready > 0:
		return datav1alpha1.RuntimePhasePartialReady
	}
	return datav1alpha1.RuntimePhaseNotReady
}

// verdict is one condition's value.
type verdict = rootcond.Verdict

// roots are the root conditions o decides, by type; the others were not
// observed this round.
func roots(o observations) map[string]verdict {
	v := map[string]verdict{}
	if d := o.datasetFound; d != nil {
		switch {
		case !d.exists:
			v[ConditionDatasetAvailable] = verdict{Status: metav1.ConditionFalse, Reason: ReasonDatasetNotFound, Message: "waiting for Dataset " + o.dataset}
		case d.boundElsewhere != "":
			v[ConditionDatasetAvailable] = verdict{Status: metav1.ConditionFalse, Reason: ReasonDatasetBoundElsewhere, Message: fmt.Sprintf("Dataset %s is bound to %s", o.dataset, d.boundElsewhere)}
		default:
			v[ConditionDatasetAvailable] = verdict{Status: metav1.ConditionTrue, Reason: ReasonDatasetFound, Message: "Dataset " + o.dataset + " is available"}
		}
	}
	if e := o.engine; e != nil {
		if e.reason != "" {
			v[ConditionEngineInstalled] = verdict{Status: metav1.ConditionFalse, Reason: e.reason, Message: e.message}
		} else {
			v[ConditionEngineInstalled] = verdict{Status: metav1.ConditionTrue, Reason: ReasonReleaseInstalled, Message: "the engine's release is installed"}
		}
	}
	if c := o.components; c != nil {
		v[ConditionMastersReady] = componentVerdict(c.masters, ReasonNoMasters, ReasonMastersReady, ReasonMastersNotReady, "masters")
		v[ConditionWorkersReady] = componentVerdict(c.workers, ReasonNoWorkers, ReasonWorkersReady, ReasonWorkersNotReady, "workers")
	}
	switch {
	case o.volumeConflict != "":
		v[ConditionVolumeBound] = verdict{Status: metav1.ConditionFalse, Reason: ReasonVolumeConflict, Message: o.volumeConflict}
	case o.volumeGoing != "":
		v[ConditionVolumeBound] = verdict{Status: metav1.ConditionFalse, Reason: ReasonVolumeDeleting, Message: o.volumeGoing}
	case o.bound:
		v[ConditionVolumeBound] = verdict{Status: metav1.ConditionTrue, Reason: ReasonBound, Message: "Dataset " + o.dataset + " is bound"}
	}
	return v
}

func componentVerdict(c *counts, none, ready, notReady, what string) verdict {
	switch {
	case c == nil:
		return verdict{Status: metav1.ConditionTrue, Reason: none, Message: "the engine runs no " + what}
	case c.done:
		return verdict{Status: metav1.ConditionTrue, Reason: ready, Message: "every desired " + strings.TrimSuffix(what, "s") + " is ready"}
	}
	return verdict{Status: metav1.ConditionFalse, Reason: notReady, Message: waitMessages[notReady]}
}

// conditions are prev with the root conditions o decides, those never
// decided Unknown (Pending), and Ready summarising them (or InUse while a
// deletion waits, or the cache cleanup's state, CacheCleaned, once it
// runs).
func conditions(prev []metav1.Condition, o observations) []metav1.Condition {
	r := rootcond.Round{Conds: slices.Clone(prev), Generation: o.generation, Now: o.now}
	decided := roots(o)
	ready := r.Roots(rootConditions, func(typ string) (verdict, bool) {
		v, ok := decided[typ]
		return v, ok
	})
	switch {
	case o.inUse != nil:
		ready = &verdict{Status: metav1.ConditionFalse, Reason: ReasonInUse, Message: fmt.Sprintf("deletion waits for Pods using the Dataset to finish: %s", strings.Join(o.inUse, ", "))}
	case o.cleanup != nil:
		r.Set(ConditionCacheCleaned, *o.cleanup)
		ready = &verdict{Status: metav1.ConditionFalse, Reason: o.cleanup.Reason, Message: o.cleanup.Message}
	case ready == nil:
		ready = &verdict{Status: metav1.ConditionTrue, Reason: ReasonBound, Message: "Dataset " + o.dataset + " is bound"}
	}
	r.Set(ConditionReady, *ready)
	return r.Conds
}

// progressEvery bounds how often the status of a runtime that waits for its
// masters or workers is rewritten only because figures that do not decide
// its readiness moved: scheduling counts (the StatefulSet appeared, pods
// were created or scheduled) and FUSE figures (FUSE runs only where Pods
// use the Dataset, so it never holds binding back). Each of those changes
// wakes the runtime, and each status write is an API write that every
// watcher of the runtime receives. Everything else (the conditions, master
// and worker phases and ready counts) is written at once; the rest waits
// until progressEvery after the conditions last changed, and catches up
// with the first reconcile after that (the waiting runtime's requeue).
const progressEvery = 15 * time.Second

// needsWrite says whether next (this reconcile's status) must be written
// over stored (the status as stored): it differs, and not only in progress
// figures of a waiting runtime whose conditions changed within
// progressEvery of now.
func needsWrite(stored, next *datav1alpha1.RuntimeStatus, now time.Time) bool {
	if equality.Semantic.DeepEqual(stored, next) {
		return false
	}
	ready := meta.FindStatusCondition(next.Conditions, ConditionReady)
	waiting := ready != nil && waitMessages[ready.Reason] != ""
	return !(waiting && progressOnly(stored, next) && now.Sub(lastTransition(stored)) < progressEvery)
}

// lastTransition is the latest transition of any of the conditions.
func lastTransition(s *datav1alpha1.RuntimeStatus) time.Time {
	var t time.Time
	for _, c := range s.Conditions {
		if c.LastTransitionTime.After(t) {
			t = c.LastTransitionTime.Time
		}
	}
	return t
}

// progressOnly reports whether two runtime statuses differ in no more than
// the figures progressEvery describes.
func progressOnly(a, b *datav1alpha1.RuntimeStatus) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	for _, s := range []*datav1alpha1.RuntimeStatus{a, b} {
		s.DesiredMasterNumberScheduled, s.CurrentMasterNumberScheduled = 0, 0
		s.DesiredWorkerNumberScheduled, s.CurrentWorkerNumberScheduled, s.WorkerNumberAvailable, s.WorkerNumberUnavailable = 0, 0, 0, 0
		s.Selector = ""
		s.FusePhase, s.DesiredFuseNumberScheduled, s.CurrentFuseNumberScheduled = "", 0, 0
		s.FuseNumberReady, s.FuseNumberAvailable, s.FuseNumberUnavailable = 0, 0, 0
	}
	return equality.Semantic.DeepEqual(a, b)
}

// readyNote is a Ready transition worth an Event.
type readyNote struct {
	typ, reason, note string
}

// readyEvent is the Event for Ready going from prev (nil: never set) to
// next, if any: every change of Ready's status or reason, except a new
// runtime starting to wait (its release event says it started). Waiting,
// binding, a missing Dataset and a cache cleanup running or done are
// Normal; every other failure (a cache cleanup that gave up among them) a
// Warning.
func readyEvent(prev, next *metav1.Condition) (readyNote, bool) {
	if next == nil {
		return readyNote{}, false
	}
	starting := prev == nil && waitMessages[next.Reason] != ""
	if starting || prev != nil && prev.Status == next.Status && prev.Reason == next.Reason {
		return readyNote{}, false
	}
	typ := corev1.EventTypeNormal
	if next.Status != metav1.ConditionTrue && waitMessages[next.Reason] == "" && !normalReasons[next.Reason] {
		typ = corev1.EventTypeWarning
	}
	return readyNote{typ: typ, reason: next.Reason, note: next.Message}, true
}

package cacheruntime

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// TestRuntimeStatus computes the status from observations alone, without a
// client: Ready is the first root condition that is not True, roots not
// observed keep what they said, and the counts and Fluid's phases follow
// the workloads.
func TestRuntimeStatus(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ready := &counts{desired: 2, current: 2, ready: 2, available: 2, phase: datav1alpha1.RuntimePhaseReady, done: true}
	partial := &counts{desired: 2, current: 2, ready: 1, available: 1, phase: datav1alpha1.RuntimePhasePartialReady}
	sel := "role=d-worker"
	found := &datasetFound{exists: true}
	installed := &engineVerdict{}
	// bound is the status of a runtime whose Dataset is bound.
	bound := runtimeStatus(&datav1alpha1.RuntimeStatus{}, observations{now: now, generation: 1, dataset: "n/d", datasetFound: found, engine: installed,
		components: &componentCounts{workers: ready, selector: &sel}, bound: true})
	for _, tc := range []struct {
		name string
		prev *datav1alpha1.RuntimeStatus // the status as stored
		obs  observations                // what the reconcile saw (now, generation and dataset are filled in)
		// ready is Ready's status and reason; roots the root conditions'
		// reasons, by type.
		ready       metav1.ConditionStatus
		reason      string
		roots       map[string]string
		workerPhase datav1alpha1.RuntimePhase
	}{
		{name: "no Dataset yet", prev: &datav1alpha1.RuntimeStatus{}, obs: observations{datasetFound: &datasetFound{}},
			ready: metav1.ConditionFalse, reason: ReasonDatasetNotFound,
			roots: map[string]string{ConditionDatasetAvailable: ReasonDatasetNotFound, ConditionEngineInstalled: ReasonPending, ConditionVolumeBound: ReasonPending}},
		{name: "Dataset bound elsewhere", prev: &datav1alpha1.RuntimeStatus{}, obs: observations{datasetFound: &datasetFound{exists: true, boundElsewhere: "alluxio runtime x"}},
			ready: metav1.ConditionFalse, reason: ReasonDatasetBoundElsewhere, roots: map[string]string{ConditionDatasetAvailable: ReasonDatasetBoundElsewhere}},
		{name: "invalid spec", prev: &datav1alpha1.RuntimeStatus{}, obs: observations{datasetFound: found, engine: &engineVerdict{engines.ReasonInvalidSpec, "bad"}},
			ready: metav1.ConditionFalse, reason: engines.ReasonInvalidSpec,
			roots: map[string]string{ConditionDatasetAvailable: ReasonDatasetFound, ConditionEngineInstalled: engines.ReasonInvalidSpec, ConditionWorkersReady: ReasonPending}},
		{name: "release failed", prev: &datav1alpha1.RuntimeStatus{}, obs: observations{datasetFound: found, engine: &engineVerdict{ReasonReleaseFailed, "helm"}},
			ready: metav1.ConditionFalse, reason: ReasonReleaseFailed},
		{name: "masters before workers", prev: &datav1alpha1.RuntimeStatus{},
			obs:   observations{datasetFound: found, engine: installed, components: &componentCounts{masters: &counts{phase: datav1alpha1.RuntimePhaseNotReady}, workers: partial}},
			ready: metav1.ConditionFalse, reason: ReasonMastersNotReady, workerPhase: datav1alpha1.RuntimePhasePartialReady,
			roots: map[string]string{ConditionMastersReady: ReasonMastersNotReady, ConditionWorkersReady: ReasonWorkersNotReady}},
		{name: "workers starting", prev: &datav1alpha1.RuntimeStatus{},
			obs:   observations{datasetFound: found, engine: installed, components: &componentCounts{workers: partial}},
			ready: metav1.ConditionFalse, reason: ReasonWorkersNotReady, workerPhase: datav1alpha1.RuntimePhasePartialReady,
			roots: map[string]string{ConditionMastersReady: ReasonNoMasters, ConditionWorkersReady: ReasonWorkersNotReady, ConditionVolumeBound: ReasonPending}},
		{name: "bound", prev: &datav1alpha1.RuntimeStatus{},
			obs:   observations{datasetFound: found, engine: installed, components: &componentCounts{workers: ready, selector: &sel}, bound: true},
			ready: metav1.ConditionTrue, reason: ReasonBound, workerPhase: datav1alpha1.RuntimePhaseReady,
			roots: map[string]string{ConditionDatasetAvailable: ReasonDatasetFound, ConditionEngineInstalled: ReasonReleaseInstalled,
				ConditionMastersReady: ReasonNoMasters, ConditionWorkersReady: ReasonWorkersReady, ConditionVolumeBound: ReasonBound}},
		{name: "no workers at all", prev: &datav1alpha1.RuntimeStatus{},
			obs:   observations{datasetFound: found, engine: installed, components: &componentCounts{}, bound: true},
			ready: metav1.ConditionTrue, reason: ReasonBound, roots: map[string]string{ConditionWorkersReady: ReasonNoWorkers}},
		// Once bound, a worker lost waits again; the volume stays bound.
		{name: "bound, a worker lost", prev: bound,
			obs:   observations{datasetFound: found, engine: installed, components: &componentCounts{workers: partial}},
			ready: metav1.ConditionFalse, reason: ReasonWorkersNotReady, workerPhase: datav1alpha1.RuntimePhasePartialReady,
			roots: map[string]string{ConditionWorkersReady: ReasonWorkersNotReady, ConditionVolumeBound: ReasonBound}},
		// The Dataset deleted under a bound runtime: the rest is as it was.
		{name: "bound, Dataset gone", prev: bound, obs: observations{datasetFound: &datasetFound{}},
			ready: metav1.ConditionFalse, reason: ReasonDatasetNotFound, workerPhase: datav1alpha1.RuntimePhaseReady,
			roots: map[string]string{ConditionDatasetAvailable: ReasonDatasetNotFound, ConditionWorkersReady: ReasonWorkersReady, ConditionVolumeBound: ReasonBound}},
		{name: "deleting, in use", prev: bound, obs: observations{inUse: []string{"app-0"}},
			ready: metav1.ConditionFalse, reason: ReasonInUse, workerPhase: datav1alpha1.RuntimePhaseReady,
			roots: map[string]string{ConditionVolumeBound: ReasonBound}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obs
			o.now, o.generation, o.dataset = now.Add(time.Minute), 2, "n/d"
			prev := tc.prev.DeepCopy()
			got := runtimeStatus(tc.prev, o)
			if !equality.Semantic.DeepEqual(prev, tc.prev) {
				t.Error("runtimeStatus changed its input")
			}
			c := meta.FindStatusCondition(got.Conditions, ConditionReady)
			if c == nil || c.Status != tc.ready || c.Reason != tc.reason || c.ObservedGeneration != 2 {
				t.Errorf("Ready = %+v, want %s/%s at generation 2", c, tc.ready, tc.reason)
			}
			if got.ObservedGeneration != 2 {
				t.Errorf("observedGeneration = %d, want 2", got.ObservedGeneration)
			}
			for typ, reason := range tc.roots {
				if c := meta.FindStatusCondition(got.Conditions, typ); c == nil || c.Reason != reason {
					t.Errorf("%s = %+v, want reason %s", typ, c, reason)
				}
			}
			for _, typ := range rootConditions {
				if meta.FindStatusCondition(got.Conditions, typ) == nil {
					t.Errorf("root condition %s missing", typ)
				}
			}
			if got.WorkerPhase != tc.workerPhase {
				t.Errorf("workerPhase = %q, want %q", got.WorkerPhase, tc.workerPhase)
			}
		})
	}
}

// TestRuntimeStatusAPIGateway: the gateway's endpoint is recorded with the
// observed workloads, kept by a reconcile that did not observe them, and
// cleared once the release runs none.
func TestRuntimeStatusAPIGateway(t *testing.T) {
	got := runtimeStatus(&datav1alpha1.RuntimeStatus{}, observations{components: &componentCounts{gateway: "demo-master-0.demo-master.ns.svc:39999"}})
	if got.APIGateway.Endpoint != "demo-master-0.demo-master.ns.svc:39999" {
		t.Errorf("endpoint %q, want the gateway's", got.APIGateway.Endpoint)
	}
	if kept := runtimeStatus(got, observations{}); kept.APIGateway.Endpoint != got.APIGateway.Endpoint {
		t.Errorf("a reconcile that did not observe the workloads changed the endpoint to %q", kept.APIGateway.Endpoint)
	}
	if cleared := runtimeStatus(got, observations{components: &componentCounts{}}); cleared.APIGateway.Endpoint != "" {
		t.Errorf("no gateway runs, yet endpoint %q", cleared.APIGateway.Endpoint)
	}
}

// TestRuntimeStatusCounts: the counts of observed workloads are copied,
// those of workloads not observed are kept, and a missing StatefulSet is
// NotReady.
func TestRuntimeStatusCounts(t *testing.T) {
	prev := &datav1alpha1.RuntimeStatus{FuseNumberReady: 4, MasterNumberReady: 3, Selector: "old"}
	fuse := &appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 1, NumberAvailable: 1, NumberUnavailable: 2}
	missing := observeStatefulSet(nil)
	got := runtimeStatus(prev, observations{datasetFound: &datasetFound{exists: true}, engine: &engineVerdict{},
		components: &componentCounts{workers: &missing, fuse: fuse}})
	if got.WorkerPhase != datav1alpha1.RuntimePhaseNotReady || got.Selector != "old" || got.MasterNumberReady != 3 {
		t.Errorf("missing workers, no masters: %+v", got)
	}
	if got.FuseNumberReady != 1 || got.DesiredFuseNumberScheduled != 3 || got.FuseNumberUnavailable != 2 || got.FusePhase != datav1alpha1.RuntimePhasePartialReady {
		t.Errorf("FUSE counts: %+v", got)
	}
	aff := &observedAffinity{affinity: &corev1.NodeAffinity{}}
	got = runtimeStatus(got, observations{cacheAffinity: aff, cacheStates: datav1alpha1.CacheStateList{datav1alpha1.Cached: "1KiB"}})
	if got.CacheAffinity == nil || got.CacheStates[datav1alpha1.Cached] != "1KiB" || got.FuseNumberReady != 1 {
		t.Errorf("cache affinity and states: %+v", got)
	}
	if kept := runtimeStatus(got, observations{}); kept.CacheAffinity == nil {
		t.Errorf("a reconcile that did not observe the workers cleared the cache affinity")
	}
	if cleared := runtimeStatus(got, observations{cacheAffinity: &observedAffinity{}}); cleared.CacheAffinity != nil {
		t.Errorf("nothing known of the cache's place, yet cacheAffinity %+v", cleared.CacheAffinity)
	}
}

// TestConditionTransitions: a condition keeps its transition time while
// its status holds, and takes the reconcile's clock when it changes.
func TestConditionTransitions(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	o := observations{now: t0, datasetFound: &datasetFound{exists: true}, engine: &engineVerdict{}, components: &componentCounts{workers: &counts{desired: 1}}}
	waiting := runtimeStatus(&datav1alpha1.RuntimeStatus{}, o)
	o.now = t0.Add(time.Minute)
	again := runtimeStatus(waiting, o)
	if needsWrite(waiting, again, o.now) {
		t.Errorf("nothing changed, yet a write: %+v", again)
	}
	o.components.workers = &counts{desired: 1, ready: 1, done: true}
	o.bound = true
	bound := runtimeStatus(again, o)
	c := meta.FindStatusCondition(bound.Conditions, ConditionReady)
	if c.Status != metav1.ConditionTrue || !c.LastTransitionTime.Time.Equal(o.now) {
		t.Errorf("Ready = %+v, want True since %s", c, o.now)
	}
	if d := meta.FindStatusCondition(bound.Conditions, ConditionDatasetAvailable); !d.LastTransitionTime.Time.Equal(t0) {
		t.Errorf("DatasetAvailable moved to %s, want %s (unchanged)", d.LastTransitionTime, t0)
	}
}

// TestNeedsWrite: any change is written at once but the progress figures
// of a waiting runtime, which wait until progressEvery after the last
// condition transition.
func TestNeedsWrite(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	o := observations{now: t0, datasetFound: &datasetFound{exists: true}, engine: &engineVerdict{}, components: &componentCounts{workers: &counts{desired: 2}}}
	stored := runtimeStatus(&datav1alpha1.RuntimeStatus{}, o)
	scheduled := func(s *datav1alpha1.RuntimeStatus) {
		s.DesiredWorkerNumberScheduled, s.CurrentWorkerNumberScheduled = 3, 3
	}
	for _, tc := range []struct {
		name   string
		change func(*datav1alpha1.RuntimeStatus)
		after  time.Duration // since the conditions last changed
		want   bool
	}{
		{"nothing", func(*datav1alpha1.RuntimeStatus) {}, time.Hour, false},
		{"scheduling counts, soon", scheduled, time.Second, false},
		{"scheduling counts, progressEvery later", scheduled, progressEvery, true},
		{"ready workers", func(s *datav1alpha1.RuntimeStatus) { s.WorkerNumberReady = 1 }, time.Second, true},
		{"generation", func(s *datav1alpha1.RuntimeStatus) { s.ObservedGeneration = 5 }, time.Second, true},
	} {
		next := stored.DeepCopy()
		tc.change(next)
		if got := needsWrite(stored, next, t0.Add(tc.after)); got != tc.want {
			t.Errorf("%s: needsWrite = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A runtime that is not waiting writes progress figures at once.
	o.components.workers, o.bound = &counts{desired: 2, ready: 2, done: true}, true
	boundStatus := runtimeStatus(stored, o)
	next := boundStatus.DeepCopy()
	scheduled(next)
	if !needsWrite(boundStatus, next, t0) {
		t.Error("a bound runtime's counts wait")
	}
}

// TestReadyEvent: every change of Ready's status or reason is an Event but
// a new runtime starting to wait; failures are Warnings.
func TestReadyEvent(t *testing.T) {
	cond := func(s metav1.ConditionStatus, reason string) *metav1.Condition {
		return &metav1.Condition{Type: ConditionReady, Status: s, Reason: reason, Message: reason + "!"}
	}
	waitingC, boundC := cond(metav1.ConditionFalse, ReasonWorkersNotReady), cond(metav1.ConditionTrue, ReasonBound)
	for _, tc := range []struct {
		name       string
		prev, next *metav1.Condition
		typ        string // "" for no event
	}{
		{"a new runtime waits", nil, waitingC, ""},
		{"a new runtime misses its Dataset", nil, cond(metav1.ConditionFalse, ReasonDatasetNotFound), corev1.EventTypeNormal},
		{"a new runtime is invalid", nil, cond(metav1.ConditionFalse, engines.ReasonInvalidSpec), corev1.EventTypeWarning},
		{"still waiting", waitingC, waitingC, ""},
		{"bound", waitingC, boundC, corev1.EventTypeNormal},
		{"still bound", boundC, boundC, ""},
		{"masters, then workers", cond(metav1.ConditionFalse, ReasonMastersNotReady), waitingC, corev1.EventTypeNormal},
		{"release failed", boundC, cond(metav1.ConditionFalse, ReasonReleaseFailed), corev1.EventTypeWarning},
		{"the cache cleanup starts", boundC, cond(metav1.ConditionFalse, ReasonCleaningCache), corev1.EventTypeNormal},
		{"the cache cleanup is done", cond(metav1.ConditionFalse, ReasonCleaningCache), cond(metav1.ConditionFalse, ReasonCacheCleaned), corev1.EventTypeNormal},
		{"the cache cleanup gave up", cond(metav1.ConditionFalse, ReasonCleaningCache), cond(metav1.ConditionFalse, ReasonCleanupFailed), corev1.EventTypeWarning},
	} {
		e, ok := readyEvent(tc.prev, tc.next)
		if ok != (tc.typ != "") || ok && (e.typ != tc.typ || e.reason != tc.next.Reason || e.note != tc.next.Message) {
			t.Errorf("%s: event %+v (%v), want type %q", tc.name, e, ok, tc.typ)
		}
	}
}

// TestLongMessagesAreCut (reliability audit L6): a 40 KiB error (a Helm
// failure) reaches the conditions cut to what the API server accepts, so
// the status that reports it can be written.
func TestLongMessagesAreCut(t *testing.T) {
	huge := strings.Repeat("x", 40<<10)
	conds := conditions(nil, observations{now: time.Now(), dataset: "ns/ds",
		datasetFound: &datasetFound{exists: true}, engine: &engineVerdict{reason: ReasonReleaseFailed, message: huge}})
	for _, c := range conds {
		if len(c.Message) > datav1alpha1.MaxConditionMessage {
			t.Errorf("condition %s: message of %d bytes", c.Type, len(c.Message))
		}
	}
	if c := meta.FindStatusCondition(conds, ConditionReady); c == nil || c.Reason != ReasonReleaseFailed || !strings.HasPrefix(c.Message, "xxx") {
		t.Fatalf("Ready = %+v", c)
	}
}

// TestCleanupConditions: while a deletion's cache cleanup runs, and once it
// concluded, CacheCleaned says so and Ready repeats it; the root
// conditions keep what they said.
func TestCleanupConditions(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	bound := runtimeStatus(&datav1alpha1.RuntimeStatus{}, observations{now: now, dataset: "n/d", datasetFound: &datasetFound{exists: true},
		engine: &engineVerdict{}, components: &componentCounts{}, bound: true})
	for _, v := range []verdict{
		{Status: metav1.ConditionFalse, Reason: ReasonCleaningCache, Message: "removing the cache directories on node a"},
		{Status: metav1.ConditionTrue, Reason: ReasonCacheCleaned, Message: "removed the cache directories on node a"},
		{Status: metav1.ConditionFalse, Reason: ReasonCleanupFailed, Message: "the cache cleanup gave up, the deletion goes on: node a: Job x failed"},
	} {
		s := runtimeStatus(bound, observations{now: now, dataset: "n/d", cleanup: &v})
		c, r := meta.FindStatusCondition(s.Conditions, ConditionCacheCleaned), meta.FindStatusCondition(s.Conditions, ConditionReady)
		if c == nil || c.Status != v.Status || c.Reason != v.Reason || c.Message != v.Message {
			t.Errorf("CacheCleaned = %+v, want %+v", c, v)
		}
		if r == nil || r.Status != metav1.ConditionFalse || r.Reason != v.Reason || r.Message != v.Message {
			t.Errorf("Ready = %+v, want False with %+v", r, v)
		}
		if b := meta.FindStatusCondition(s.Conditions, ConditionVolumeBound); b == nil || b.Reason != ReasonBound {
			t.Errorf("VolumeBound = %+v, want it kept", b)
		}
	}
}

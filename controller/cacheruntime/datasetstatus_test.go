package cacheruntime

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// TestDatasetStatus computes the Dataset's status from a runtime
// reconcile's observations alone: the phase follows its Ready condition,
// which the runtime's failures, a pending change of the mounts and the
// binding decide.
func TestDatasetStatus(t *testing.T) {
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
	mounts := []datav1alpha1.Mount{{MountPoint: "juicefs:///d"}}
	ready := func(status metav1.ConditionStatus, reason string) []metav1.Condition {
		return []metav1.Condition{{Type: ConditionReady, Status: status, Reason: reason}}
	}
	bound := []datav1alpha1.Runtime{{Name: "d", Namespace: "n", Type: "juicefs", Category: datav1alpha1.AccelerateCategory}}
	// status is a stored status: phase, Ready's reason ("" none), bound or not.
	status := func(phase datav1alpha1.DatasetPhase, reason string, isBound bool) datav1alpha1.DatasetStatus {
		s := datav1alpha1.DatasetStatus{Phase: phase}
		switch reason {
		case "":
		case ReasonBound:
			s.Conditions = ready(metav1.ConditionTrue, reason)
		default:
			s.Conditions = ready(metav1.ConditionFalse, reason)
		}
		if isBound {
			s.Runtimes, s.Mounts = bound, mounts
		}
		return s
	}
	found := &datasetFound{exists: true}
	ok := &engineVerdict{}
	invalid := &engineVerdict{reason: engines.ReasonInvalidSpec, message: "spec.mounts[0].mountPoint: refused"}
	applying := &mountSync{spec: mounts, pending: true, waiting: "StatefulSet d-worker to roll out"}
	applied := &mountSync{spec: mounts, pending: true, record: true}
	failed := &mountSync{spec: mounts, pending: true, failed: "Job d-mounts-0123456789 failed: BackoffLimitExceeded"}
	settled := &mountSync{spec: mounts}
	for _, c := range []struct {
		name   string
		stored datav1alpha1.DatasetStatus // the status as stored
		obs    observations               // what the reconcile saw
		phase  datav1alpha1.DatasetPhase  // the phase after
		reason string                     // Ready's reason after
		bound  bool                       // status.runtimes lists the runtime after
	}{
		{"new, runtime starting", status(datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false),
			observations{datasetFound: found, engine: ok, mounts: &mountSync{spec: mounts}}, datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false},
		{"first binding", status(datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false),
			observations{datasetFound: found, engine: ok, mounts: &mountSync{spec: mounts, record: true}, bound: true}, datav1alpha1.BoundDatasetPhase, ReasonBound, true},
		{"invalid spec before binding", status(datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false),
			observations{datasetFound: found, engine: invalid}, datav1alpha1.FailedDatasetPhase, engines.ReasonInvalidSpec, false},
		{"fixed before binding: starting again", status(datav1alpha1.FailedDatasetPhase, engines.ReasonInvalidSpec, false),
			observations{datasetFound: found, engine: ok}, datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false},
		{"release failed before binding", status(datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false),
			observations{datasetFound: found, engine: &engineVerdict{reason: ReasonReleaseFailed, message: "helm: boom"}}, datav1alpha1.FailedDatasetPhase, ReasonReleaseFailed, false},
		{"volume conflict", status(datav1alpha1.NotBoundDatasetPhase, ReasonNotBound, false),
			observations{datasetFound: found, engine: ok, volumeConflict: "PVC n/d exists"}, datav1alpha1.FailedDatasetPhase, ReasonVolumeConflict, false},
		{"bound, invalid spec: Failed, still bound", status(datav1alpha1.BoundDatasetPhase, ReasonBound, true),
			observations{datasetFound: found, engine: invalid}, datav1alpha1.FailedDatasetPhase, engines.ReasonInvalidSpec, true},
		{"bound, fixed", status(datav1alpha1.FailedDatasetPhase, engines.ReasonInvalidSpec, true),
			observations{datasetFound: found, engine: ok, mounts: settled}, datav1alpha1.BoundDatasetPhase, ReasonBound, true},
		{"mount edit being applied", status(datav1alpha1.BoundDatasetPhase, ReasonBound, true),
			observations{datasetFound: found, engine: ok, mounts: applying}, datav1alpha1.UpdatingDatasetPhase, ReasonUpdating, true},
		{"mount edit being applied, volumes checked", status(datav1alpha1.BoundDatasetPhase, ReasonBound, true),
			observations{datasetFound: found, engine: ok, mounts: applying, bound: true}, datav1alpha1.UpdatingDatasetPhase, ReasonUpdating, true},
		{"mount edit applied", status(datav1alpha1.UpdatingDatasetPhase, ReasonUpdating, true),
			observations{datasetFound: found, engine: ok, mounts: applied, bound: true}, datav1alpha1.BoundDatasetPhase, ReasonBound, true},
		{"mount Job failed", status(datav1alpha1.UpdatingDatasetPhase, ReasonUpdating, true),
			observations{datasetFound: found, engine: ok, mounts: failed}, datav1alpha1.FailedDatasetPhase, ReasonMountsFailed, true},
		{"bound, stopped before the workloads: kept", status(datav1alpha1.UpdatingDatasetPhase, ReasonUpdating, true),
			observations{datasetFound: found, engine: ok}, datav1alpha1.UpdatingDatasetPhase, ReasonUpdating, true},
		{"DataMigrating is the DataMigrate's", status(datav1alpha1.DataMigratingDatasetPhase, ReasonBound, true),
			observations{datasetFound: found, engine: ok, mounts: applying}, datav1alpha1.DataMigratingDatasetPhase, ReasonUpdating, true},
		{"bound elsewhere: not ours", status(datav1alpha1.BoundDatasetPhase, ReasonBound, false),
			observations{datasetFound: &datasetFound{exists: true, boundElsewhere: "alluxio runtime d"}, engine: invalid}, datav1alpha1.BoundDatasetPhase, ReasonBound, false},
	} {
		ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", Generation: 3},
			Spec: datav1alpha1.DatasetSpec{Mounts: mounts}, Status: c.stored}
		got := datasetStatus(ds, rt, "juicefs", c.obs)
		r := meta.FindStatusCondition(got.Conditions, ConditionReady)
		if got.Phase != c.phase || r == nil || r.Reason != c.reason || boundTo(&datav1alpha1.Dataset{Status: got}, rt, "juicefs") != c.bound {
			t.Errorf("%s: phase %q, Ready %+v, runtimes %v; want %q, reason %q, bound %v", c.name, got.Phase, r, got.Runtimes, c.phase, c.reason, c.bound)
		}
	}
}

// TestDatasetStatusFigures: the Dataset's cacheStates, ufsTotal and
// fileNum are what the reconcile observed (the cache figures read, the
// usage counted, Calculating while a first count runs), and as stored when
// it observed none; a Dataset bound elsewhere keeps its own.
func TestDatasetStatusFigures(t *testing.T) {
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
	found := &datasetFound{exists: true}
	read := datav1alpha1.CacheStateList{datav1alpha1.Cached: "1KiB"}
	counted := &engines.UFSUsage{Bytes: 1536, Files: 7}
	for _, c := range []struct {
		name         string
		stored       datav1alpha1.DatasetStatus // cacheStates, ufsTotal and fileNum as stored
		obs          observations               // what the reconcile saw
		cached       string                     // cacheStates' cached after ("" none)
		total, files string                     // ufsTotal and fileNum after
	}{
		{"nothing observed", datav1alpha1.DatasetStatus{CacheStates: datav1alpha1.CacheStateList{datav1alpha1.Cached: "2KiB"}, UfsTotal: "1.00KiB", FileNum: "1"},
			observations{datasetFound: found}, "2KiB", "1.00KiB", "1"},
		{"cache figures read", datav1alpha1.DatasetStatus{CacheStates: datav1alpha1.CacheStateList{datav1alpha1.Cached: "2KiB"}},
			observations{datasetFound: found, cacheStates: read}, "1KiB", "", ""},
		{"counted", datav1alpha1.DatasetStatus{UfsTotal: Calculating, FileNum: Calculating},
			observations{datasetFound: found, usage: counted}, "", "1.50KiB", "7"},
		{"first count started", datav1alpha1.DatasetStatus{},
			observations{datasetFound: found, calculating: true}, "", Calculating, Calculating},
		{"half known: counted again, Calculating", datav1alpha1.DatasetStatus{UfsTotal: "1.00KiB"},
			observations{datasetFound: found, calculating: true}, "", Calculating, Calculating},
		{"known: counted again, kept", datav1alpha1.DatasetStatus{UfsTotal: "1.00KiB", FileNum: "1"},
			observations{datasetFound: found, calculating: true}, "", "1.00KiB", "1"},
		{"bound elsewhere: not ours", datav1alpha1.DatasetStatus{UfsTotal: "1.00KiB", FileNum: "1"},
			observations{datasetFound: &datasetFound{exists: true, boundElsewhere: "juicefs runtime d"}, cacheStates: read, usage: counted}, "", "1.00KiB", "1"},
	} {
		ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}, Status: c.stored}
		got := datasetStatus(ds, rt, "alluxio", c.obs)
		if got.CacheStates[datav1alpha1.Cached] != c.cached || got.UfsTotal != c.total || got.FileNum != c.files {
			t.Errorf("%s: cached %q, ufsTotal %q, fileNum %q; want %q, %q, %q", c.name,
				got.CacheStates[datav1alpha1.Cached], got.UfsTotal, got.FileNum, c.cached, c.total, c.files)
		}
	}
}

// TestDatasetStatusMessages: Ready's message names the runtime and says
// what a pending change waits for, or why it failed.
func TestDatasetStatusMessages(t *testing.T) {
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Status: datav1alpha1.DatasetStatus{Runtimes: []datav1alpha1.Runtime{{Name: "d", Namespace: "n", Type: "alluxio"}}}}
	for _, c := range []struct {
		obs  observations
		want string
	}{
		{observations{engine: &engineVerdict{}, mounts: &mountSync{pending: true, waiting: "Job d-mounts-0123456789 to finish"}},
			"alluxio runtime d is applying the Dataset's mounts: waiting for Job d-mounts-0123456789 to finish"},
		{observations{engine: &engineVerdict{}, mounts: &mountSync{pending: true, failed: "Job d-mounts-0123456789 failed: BackoffLimitExceeded"}},
			"alluxio runtime d could not apply the Dataset's mounts: Job d-mounts-0123456789 failed: BackoffLimitExceeded"},
		{observations{engine: &engineVerdict{reason: engines.ReasonInvalidSpec, message: "spec.mounts[0]: the root cannot change"}},
			"alluxio runtime d: spec.mounts[0]: the root cannot change"},
	} {
		c.obs.datasetFound = &datasetFound{exists: true}
		got := meta.FindStatusCondition(datasetStatus(ds, rt, "alluxio", c.obs).Conditions, ConditionReady)
		if got == nil || got.Message != c.want {
			t.Errorf("Ready = %+v, want message %q", got, c.want)
		}
	}
}

// TestDatasetEvents: the start and the end of a mount change and a
// failure are told on the Dataset; a first binding and a runtime starting
// again are not (the runtime's events tell them).
func TestDatasetEvents(t *testing.T) {
	cond := func(status metav1.ConditionStatus, reason string) *metav1.Condition {
		return &metav1.Condition{Type: ConditionReady, Status: status, Reason: reason, Message: "m"}
	}
	for _, c := range []struct {
		name       string
		prev, next *metav1.Condition
		typ        string // the event's type, "" for none
	}{
		{"first binding", cond(metav1.ConditionFalse, ReasonNotBound), cond(metav1.ConditionTrue, ReasonBound), ""},
		{"updating", cond(metav1.ConditionTrue, ReasonBound), cond(metav1.ConditionFalse, ReasonUpdating), corev1.EventTypeNormal},
		{"applied", cond(metav1.ConditionFalse, ReasonUpdating), cond(metav1.ConditionTrue, ReasonBound), corev1.EventTypeNormal},
		{"failed", cond(metav1.ConditionTrue, ReasonBound), cond(metav1.ConditionFalse, engines.ReasonInvalidSpec), corev1.EventTypeWarning},
		{"mounts failed", cond(metav1.ConditionFalse, ReasonUpdating), cond(metav1.ConditionFalse, ReasonMountsFailed), corev1.EventTypeWarning},
		{"starting again", cond(metav1.ConditionFalse, engines.ReasonInvalidSpec), cond(metav1.ConditionFalse, ReasonNotBound), ""},
		{"unchanged", cond(metav1.ConditionFalse, ReasonUpdating), cond(metav1.ConditionFalse, ReasonUpdating), ""},
	} {
		e, ok := datasetEvent(c.prev, c.next)
		if ok != (c.typ != "") || ok && (e.typ != c.typ || !strings.Contains(e.note, "m")) {
			t.Errorf("%s: event %+v (%v), want type %q", c.name, e, ok, c.typ)
		}
	}
}

// TestRuntimeRecordsTheAppliedMounts: the runtime's status.mounts become
// the Dataset's effective mounts once recorded, with the time; a record of
// the same mounts changes nothing.
func TestRuntimeRecordsTheAppliedMounts(t *testing.T) {
	now := metav1.Now()
	desired := []datav1alpha1.Mount{{MountPoint: "s3://b/a", Options: map[string]string{"k": "v"}}}
	o := observations{now: now.Time, datasetFound: &datasetFound{exists: true}, mounts: &mountSync{desired: desired, record: true}}
	s := runtimeStatus(&datav1alpha1.RuntimeStatus{}, o)
	if !engines.SameMounts(s.Mounts, desired) || s.MountTime == nil {
		t.Fatalf("recorded: mounts %+v, time %v", s.Mounts, s.MountTime)
	}
	o.now = o.now.Add(1e9)
	if again := runtimeStatus(s, o); !again.MountTime.Equal(s.MountTime) {
		t.Errorf("recording the same mounts moved mountTime from %v to %v", s.MountTime, again.MountTime)
	}
	o.mounts.record = false
	o.mounts.desired = []datav1alpha1.Mount{{MountPoint: "s3://b/other"}}
	if kept := runtimeStatus(s, o); !engines.SameMounts(kept.Mounts, desired) {
		t.Errorf("a change not applied was recorded: %+v", kept.Mounts)
	}
}

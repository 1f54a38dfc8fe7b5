package cacheruntime

import (
	"context"
	"errors"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/fake"
)

// TestObserveMounts: a change of a bound Dataset's mounts is pending until
// the release is in sync, every StatefulSet shows the new mounts and has
// rolled out, and the engine's mount Job for them has succeeded; a failed
// Job fails it.
func TestObserveMounts(t *testing.T) {
	ctx := context.Background()
	eng := fake.Engine{Master: true, MountJob: true}
	old := []datav1alpha1.Mount{{MountPoint: "s3://b/old", Name: "data"}}
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Spec:   datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b/new", Name: "data"}}},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase, Runtimes: []datav1alpha1.Runtime{{Name: "d", Namespace: "n", Type: "fake"}}}}
	digest := engines.MountsDigest(ds)
	jobName := engines.MountJobName("d", digest)
	done := func(name string) *counts { return &counts{name: name, mounts: digest, done: true} }
	job := func(t batchv1.JobConditionType, message string) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: jobName, Namespace: "n", Annotations: map[string]string{engines.MountsAnnotation: digest}}}
		if t != "" {
			j.Status.Conditions = []batchv1.JobCondition{{Type: t, Status: corev1.ConditionTrue, Message: message}}
		}
		return j
	}
	for _, c := range []struct {
		name     string
		unbound  bool                 // the Dataset is not bound yet
		applied  []datav1alpha1.Mount // the runtime's status.mounts
		act      helm.Action          // what Helm did this reconcile
		comps    componentCounts      // the workloads
		job      *batchv1.Job         // the mount Job, nil for none
		pending  bool                 // a change is pending
		waiting  string               // what it waits for
		failed   string               // why it failed
		recorded bool                 // the runtime records the mounts
	}{
		{name: "not bound yet: recorded when bound", unbound: true, applied: nil, act: helm.ActionNone},
		{name: "bound before mounts were recorded: adopted", applied: nil, act: helm.ActionNone, recorded: true},
		{name: "unchanged", applied: engines.EffectiveMounts(ds), act: helm.ActionNone},
		{name: "just upgraded", applied: old, act: helm.ActionUpgrade, comps: componentCounts{masters: done("d-master"), workers: done("d-worker")},
			pending: true, waiting: "the engine's release, just upgraded"},
		{name: "cache shows the old workers", applied: old, act: helm.ActionNone,
			comps:   componentCounts{masters: done("d-master"), workers: &counts{name: "d-worker", mounts: "0000"}},
			pending: true, waiting: "StatefulSet d-worker to be upgraded"},
		{name: "workers rolling", applied: old, act: helm.ActionNone,
			comps:   componentCounts{masters: done("d-master"), workers: &counts{name: "d-worker", mounts: digest, rolling: true}},
			pending: true, waiting: "StatefulSet d-worker to roll out"},
		{name: "no Job yet", applied: old, act: helm.ActionNone, comps: componentCounts{masters: done("d-master"), workers: done("d-worker")},
			pending: true, waiting: "Job " + jobName},
		{name: "Job running", applied: old, act: helm.ActionNone, comps: componentCounts{masters: done("d-master"), workers: done("d-worker")},
			job: job("", ""), pending: true, waiting: "Job " + jobName + " to finish"},
		{name: "Job failed", applied: old, act: helm.ActionNone, comps: componentCounts{masters: done("d-master"), workers: done("d-worker")},
			job: job(batchv1.JobFailed, "BackoffLimitExceeded"), pending: true, failed: "Job " + jobName + " failed: BackoffLimitExceeded"},
		{name: "applied", applied: old, act: helm.ActionNone, comps: componentCounts{masters: done("d-master"), workers: done("d-worker")},
			job: job(batchv1.JobComplete, ""), pending: true, recorded: true},
	} {
		b := fakeclient.NewClientBuilder().WithScheme(sluicescheme.New())
		if c.job != nil {
			b = b.WithObjects(c.job)
		}
		r := &Reconciler{Client: b.Build(), Engine: eng}
		d := ds.DeepCopy()
		if c.unbound {
			d.Status = datav1alpha1.DatasetStatus{}
		}
		rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
		rt.Status.Mounts = c.applied
		s := &scope{rt: rt, eng: eng, ds: d, act: c.act}
		if err := r.observeMounts(ctx, s, &c.comps); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := s.obs.mounts
		if m.pending != c.pending || m.waiting != c.waiting || m.failed != c.failed || m.record != c.recorded {
			t.Errorf("%s: pending %v, waiting %q, failed %q, record %v; want %v, %q, %q, %v", c.name, m.pending, m.waiting, m.failed, m.record,
				c.pending, c.waiting, c.failed, c.recorded)
		}
	}
}

// TestAMountEditTheEngineRefusesIsInvalidSpec: a change of a bound
// Dataset's mounts that the engine's MountChecker refuses stops the
// reconcile before Helm (EngineInstalled=False, InvalidSpec), naming the
// field; the same change on a Dataset not bound yet is the engine's to
// judge.
func TestAMountEditTheEngineRefusesIsInvalidSpec(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"},
		Spec:   datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "s3://b/new"}}},
		Status: datav1alpha1.DatasetStatus{Runtimes: []datav1alpha1.Runtime{{Name: "d", Namespace: "n", Type: "alluxio"}}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
	rt.Status.Mounts = []datav1alpha1.Mount{{MountPoint: "s3://b/old"}}
	err := refusedMountEdit(refusingEngine{}, ds, rt, "alluxio")
	var engErr *engines.Error
	if !errors.As(err, &engErr) || engErr.Reason != engines.ReasonInvalidSpec || engErr.Error() != "dataset n/d: spec.mounts[0]: the root cannot change" {
		t.Fatalf("refusal: %v", err)
	}
	ds.Status.Runtimes = nil
	if err := refusedMountEdit(refusingEngine{}, ds, rt, "alluxio"); err != nil {
		t.Errorf("a Dataset not bound: %v", err)
	}
	ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: "d", Namespace: "n", Type: "alluxio"}}
	if err := refusedMountEdit(fake.Engine{}, ds, rt, "alluxio"); err != nil {
		t.Errorf("an engine without a MountChecker: %v", err)
	}
}

// refusingEngine refuses every change of the mounts.
type refusingEngine struct{ fake.Engine }

func (refusingEngine) CheckMountEdit(applied []datav1alpha1.Mount, ds *datav1alpha1.Dataset) []engines.Finding {
	if engines.SameMounts(applied, engines.EffectiveMounts(ds)) {
		return nil
	}
	return []engines.Finding{{Path: "spec.mounts[0]", Support: engines.Refused, Message: "the root cannot change"}}
}

package dataset

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestNeedsReconcile(t *testing.T) {
	settled := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Finalizers: []string{Finalizer}},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase}}
	for _, c := range []struct {
		name   string
		change func(*datav1alpha1.Dataset)
		want   bool // the version wakes the controller
	}{
		{"settled: binding and cache-state writes", func(d *datav1alpha1.Dataset) { d.Status.UfsTotal = "1GiB" }, false},
		{"no finalizer", func(d *datav1alpha1.Dataset) { d.Finalizers = nil }, true},
		{"no phase", func(d *datav1alpha1.Dataset) { d.Status.Phase = "" }, true},
		{"being deleted", func(d *datav1alpha1.Dataset) { now := metav1.Now(); d.DeletionTimestamp = &now }, true},
	} {
		cur := settled.DeepCopy()
		c.change(cur)
		if got := needsReconcile.Update(event.UpdateEvent{ObjectOld: settled, ObjectNew: cur}); got != c.want {
			t.Errorf("%s: update passes = %v, want %v", c.name, got, c.want)
		}
		if got := needsReconcile.Create(event.CreateEvent{Object: cur}); got != c.want {
			t.Errorf("%s: create passes = %v, want %v", c.name, got, c.want)
		}
	}
	// The version with the finalizer just added, phase not shown yet: the
	// reconcile that added it wrote the phase.
	created := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d"}}
	withFinalizer := created.DeepCopy()
	withFinalizer.Finalizers = []string{Finalizer}
	if needsReconcile.Update(event.UpdateEvent{ObjectOld: created, ObjectNew: withFinalizer}) {
		t.Error("the controller's own finalizer write woke it")
	}
	other := created.DeepCopy()
	other.Finalizers = []string{"example.com/other"}
	if !needsReconcile.Update(event.UpdateEvent{ObjectOld: created, ObjectNew: other}) {
		t.Error("another party's write of a Dataset without phase or finalizer did not wake the controller")
	}
	if needsReconcile.Delete(event.DeleteEvent{Object: settled}) {
		t.Error("a removed Dataset woke the controller")
	}
}

func TestPodFinished(t *testing.T) {
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	to := func(phase corev1.PodPhase) bool {
		cur := running.DeepCopy()
		cur.Status.Phase = phase
		return podFinished.Update(event.UpdateEvent{ObjectOld: running, ObjectNew: cur})
	}
	if !to(corev1.PodSucceeded) || !to(corev1.PodFailed) {
		t.Error("a Pod that finished did not pass")
	}
	if to(corev1.PodRunning) || to(corev1.PodUnknown) {
		t.Error("a Pod still running passed")
	}
	if !podFinished.Delete(event.DeleteEvent{Object: running}) || podFinished.Create(event.CreateEvent{Object: running}) {
		t.Error("removal must pass, creation must not")
	}
}

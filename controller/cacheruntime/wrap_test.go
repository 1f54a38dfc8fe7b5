package cacheruntime

import (
	"context"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestWrapMarks: the Dataset's mark goes on the PVC it wraps and off the
// PVCs it no longer wraps; a PVC marked for another Dataset, and the
// other labels of a PVC, are never touched.
func TestWrapMarks(t *testing.T) {
	ctx := context.Background()
	claim := func(name string, labels map[string]string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, Labels: labels}}
	}
	mark := func(ds string) map[string]string {
		return map[string]string{datav1alpha1.LabelWrappedByDataset: ds, "app": "x"}
	}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		claim("nas-data", map[string]string{"app": "x"}),
		claim("old-data", mark("nas")),     // the Dataset wrapped it before its mount changed
		claim("shared", mark("other")),     // another Dataset's
		claim("other-data", mark("other")), // another Dataset's
	).Build()
	r := &Reconciler{Client: c}
	labels := func(name string) map[string]string {
		pvc := &corev1.PersistentVolumeClaim{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "team-a", Name: name}, pvc); err != nil {
			t.Fatal(err)
		}
		return pvc.Labels
	}
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "nas"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "pvc://nas-data"}}}}
	if err := r.syncWrapMarks(ctx, ds); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]map[string]string{
		"nas-data":   mark("nas"),
		"old-data":   {"app": "x"},
		"shared":     mark("other"),
		"other-data": mark("other"),
	} {
		if got := labels(name); !maps.Equal(got, want) {
			t.Errorf("PVC %s: labels %v, want %v", name, got, want)
		}
	}

	// Wrapping the PVC another Dataset wraps leaves that Dataset's mark.
	ds.Spec.Mounts[0].MountPoint = "pvc://shared"
	if err := r.syncWrapMarks(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if got := labels("shared"); !maps.Equal(got, mark("other")) {
		t.Errorf("the PVC another Dataset wraps: labels %v, want that Dataset's mark kept", got)
	}
	if got := labels("nas-data"); !maps.Equal(got, map[string]string{"app": "x"}) {
		t.Errorf("the PVC the Dataset no longer wraps: labels %v, want its mark removed", got)
	}

	// The runtime's deletion removes the Dataset's marks only.
	ds.Spec.Mounts[0].MountPoint = "pvc://nas-data"
	if err := r.syncWrapMarks(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := r.unwrapClaims(ctx, "team-a", "nas", ""); err != nil {
		t.Fatal(err)
	}
	if got := labels("nas-data"); !maps.Equal(got, map[string]string{"app": "x"}) {
		t.Errorf("after the runtime's deletion: labels %v, want the mark removed", got)
	}
	if got := labels("other-data"); !maps.Equal(got, mark("other")) {
		t.Errorf("another Dataset's PVC after the runtime's deletion: labels %v, want its mark kept", got)
	}
}

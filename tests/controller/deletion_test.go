package controller_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestRuntimeDeletedWithItsDataset deletes a bound Dataset and its runtime
// together, as `kubectl delete -f` of a manifest holding both does: the
// runtime's cleanup deletes the PVC and PV (found by the dev cluster's
// demo, when the Dataset went first), and the Dataset's finalizer holds it
// until then.
func TestRuntimeDeletedWithItsDataset(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	ds := testobj.Dataset("imagenet", ns, testobj.WithMounts("juicefs:///imagenet"))
	rt := testobj.JuiceFSRuntime("imagenet", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, key("imagenet-worker"), sts) == nil
	})
	markReady(t, sts)
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key("imagenet"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key("imagenet"), &datav1alpha1.JuiceFSRuntime{}))
	})
	// The Dataset's finalizer held it until its runtime was cleaned up.
	eventually(t, 10*time.Second, "the Dataset is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key("imagenet"), &datav1alpha1.Dataset{}))
	})
	pvc, pv := &corev1.PersistentVolumeClaim{}, &corev1.PersistentVolume{}
	if err := env.Client.Get(ctx, key("imagenet"), pvc); err == nil && pvc.DeletionTimestamp.IsZero() {
		t.Error("the PVC was left behind")
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, "imagenet")}, pv); err == nil && pv.DeletionTimestamp.IsZero() {
		t.Error("the PV was left behind")
	}
}

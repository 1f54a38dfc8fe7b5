package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// namedNamespace creates namespace name for the test and deletes it after.
func namedNamespace(t *testing.T, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := env.Client.Create(testenv.Context(t), ns); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	return name
}

// TestDatasetsFluidsPVNameConfusesBothBind (reliability audit H5): Dataset
// abc of namespace <p>-xyz and Dataset xyz-abc of namespace <p> would share
// Fluid's PV name <p>-xyz-abc (JuiceFS volume names have at least three
// characters). Both bind, each to a PV of its own, and deleting one's
// runtime leaves the other's PV alone. (Before, the second reported
// VolumeConflict on the first one's PV and never bound.)
func TestDatasetsFluidsPVNameConfusesBothBind(t *testing.T) {
	t.Parallel()
	p := "pv" + utilrand.String(6)
	for strings.Contains(p, "-") {
		p = "pv" + utilrand.String(6)
	}
	plain, dashed := namedNamespace(t, p), namedNamespace(t, p+"-xyz")
	ctx := testenv.Context(t)
	boundRuntime(t, plain, "xyz-abc")
	rt := boundRuntime(t, dashed, "abc")

	pvOf := func(ns, name string) *corev1.PersistentVolume {
		t.Helper()
		pv := &corev1.PersistentVolume{}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, name)}, pv); err != nil {
			t.Fatalf("the PV of %s/%s: %v", ns, name, err)
		}
		if c := pv.Spec.ClaimRef; c == nil || c.Namespace != ns || c.Name != name || pv.Labels[datav1alpha1.LabelDatasetNamespace] != ns {
			t.Fatalf("PV %s: claimRef %+v, labels %v; want the claim and labels of %s/%s", pv.Name, c, pv.Labels, ns, name)
		}
		return pv
	}
	first, second := pvOf(plain, "xyz-abc"), pvOf(dashed, "abc")
	if first.Name != p+"-xyz-abc" || second.Name != p+"-xyz.abc" {
		t.Fatalf("PV names %q and %q, want %q (Fluid's) and %q", first.Name, second.Name, p+"-xyz-abc", p+"-xyz.abc")
	}
	pvc := &corev1.PersistentVolumeClaim{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: dashed, Name: "abc"}, pvc); err != nil || pvc.Spec.VolumeName != second.Name {
		t.Fatalf("the PVC of %s/abc: volumeName %q, %v", dashed, pvc.Spec.VolumeName, err)
	}

	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime of "+dashed+"/abc is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, client.ObjectKeyFromObject(rt), &datav1alpha1.JuiceFSRuntime{}))
	})
	if !gone(t, types.NamespacedName{Name: second.Name}, &corev1.PersistentVolume{}) {
		t.Errorf("PV %s of the deleted runtime was left behind", second.Name)
	}
	if pv := pvOf(plain, "xyz-abc"); pv.UID != first.UID || !pv.DeletionTimestamp.IsZero() {
		t.Errorf("PV %s of %s/xyz-abc was touched by the other runtime's deletion: UID %s (was %s), deleting %v", pv.Name, plain, pv.UID, first.UID, pv.DeletionTimestamp)
	}
}

// TestAPVOfTheEarlierNameIsRenamedOnceUnused: a Dataset of a namespace
// with '-' whose PV Sluice created under the earlier name
// "<namespace>-<name>" binds on it; while a Pod uses the Dataset the pair
// stays (a Normal event says why), then it is replaced by a PV of the new
// name, bound to a new PVC.
func TestAPVOfTheEarlierNameIsRenamedOnceUnused(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	ds := testobj.Dataset("imagenet", ns, testobj.WithMounts("juicefs:///imagenet"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	legacy := ns + "-imagenet"
	if volume.Name(ds) == legacy {
		t.Fatalf("namespace %s has no '-': its PV name did not change", ns)
	}
	pvc, err := volume.PVC(ds)
	if err != nil {
		t.Fatal(err)
	}
	pvc.Spec.VolumeName = legacy
	if err := env.Client.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	old, err := volume.PV(ds, volume.Spec{FluidPath: "/runtime-mnt/juicefs/" + ns + "/imagenet/juicefs-fuse", MountType: "fuse.juicefs",
		RuntimeName: "imagenet", RuntimeNamespace: ns, ClaimUID: pvc.UID, Name: legacy})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, old); err != nil {
		t.Fatal(err)
	}
	reader := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Spec: corev1.PodSpec{NodeName: ns + "-somewhere", Containers: []corev1.Container{{Name: "r", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}}},
	}
	if err := env.Client.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}

	rt := testobj.JuiceFSRuntime("imagenet", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imagenet-worker"}, sts) == nil
	})
	markReady(t, sts)
	got := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset is Bound on the PV of the earlier name", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(ds), got) == nil && got.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	eventually(t, 20*time.Second, "a Normal event says the PV waits for the Pods", func() bool {
		return strings.Contains(runtimeEvents(t, ns, "imagenet"), "Normal VolumeRename/Wait: PV "+legacy+" keeps its earlier name while Pods use Dataset")
	})
	pv := &corev1.PersistentVolume{}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: legacy}, pv); err != nil || pv.UID != old.UID || !pv.DeletionTimestamp.IsZero() {
		t.Fatalf("the PV in use was touched: %v, UID %s (was %s), deleting %v", err, pv.UID, old.UID, pv.DeletionTimestamp)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: volume.Name(ds)}, &corev1.PersistentVolume{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a PV of the new name exists while the old pair is in use: %v", err)
	}

	// The Pod ends: the pair is replaced. This control plane runs no PVC
	// and PV protection controllers: the test removes their finalizers
	// once the volumes are being deleted, as those would.
	if err := env.Client.Delete(ctx, reader, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	oldClaim := pvc.UID
	eventually(t, 30*time.Second, "the PVC and PV are replaced by a PV of the new name", func() bool {
		for _, obj := range []client.Object{&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imagenet"}}, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: legacy}}} {
			if env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj) == nil && !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) > 0 {
				obj.SetFinalizers(nil)
				_ = env.Client.Update(ctx, obj)
			}
		}
		newPVC := &corev1.PersistentVolumeClaim{}
		if env.Client.Get(ctx, client.ObjectKeyFromObject(pvc), newPVC) != nil || newPVC.UID == oldClaim || env.Client.Get(ctx, types.NamespacedName{Name: volume.Name(ds)}, pv) != nil {
			return false
		}
		return newPVC.Spec.VolumeName == pv.Name && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID == newPVC.UID && pv.Spec.CSI.VolumeHandle == pv.Name
	})
	eventually(t, 20*time.Second, "the PV of the earlier name is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Name: legacy}, &corev1.PersistentVolume{}))
	})
	eventually(t, 20*time.Second, "the runtime is Ready again", func() bool {
		r := &datav1alpha1.JuiceFSRuntime{}
		if env.Client.Get(ctx, client.ObjectKeyFromObject(rt), r) != nil {
			return false
		}
		c := meta.FindStatusCondition(r.Status.Conditions, "Ready")
		return c != nil && c.Status == metav1.ConditionTrue
	})
	if ev := runtimeEvents(t, ns, "imagenet"); !strings.Contains(ev, "Normal VolumeRename/Replace: replacing PVC imagenet and PV "+legacy+" by a PV named "+volume.Name(ds)) {
		t.Errorf("events:\n%s", ev)
	}
}

// pvName is the PV name Sluice gives Dataset ns/name (volume.Name).
func pvName(ns, name string) string {
	return volume.Name(&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
}

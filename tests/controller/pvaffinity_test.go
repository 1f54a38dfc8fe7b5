package controller_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestPVNodeAffinityFollowsTheFuseNodeSelector: the Dataset's PV requires
// the nodes of the runtime's spec.fuse.nodeSelector. A PV Sluice created
// without one (before it wrote one) gets it in place, keeping its UID and
// binding; the API server refuses to change a PV's nodeAffinity once set,
// so after a selector change the PV is kept while a Pod uses the Dataset
// (a Warning event says why), then replaced with its PVC.
func TestPVNodeAffinityFollowsTheFuseNodeSelector(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	pvKey := types.NamespacedName{Name: pvName(ns, "imagenet")}
	ds := testobj.Dataset("imagenet", ns, testobj.WithMounts("juicefs:///imagenet"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	// The PVC and PV as an earlier Sluice created them: no nodeAffinity.
	pvc, err := volume.PVC(ds)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	old, err := volume.PV(ds, volume.Spec{FluidPath: "/runtime-mnt/juicefs/" + ns + "/imagenet/juicefs-fuse", MountType: "fuse.juicefs",
		RuntimeName: "imagenet", RuntimeNamespace: ns, ClaimUID: pvc.UID})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, old); err != nil {
		t.Fatal(err)
	}

	rt := testobj.JuiceFSRuntime("imagenet", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	rt.Spec.Fuse.NodeSelector = map[string]string{"fuse": "ok", "arch": "amd64"}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "imagenet-worker"}, sts) == nil
	})
	markReady(t, sts)

	affinity := volume.NodeAffinity
	pv := &corev1.PersistentVolume{}
	eventually(t, 20*time.Second, "the PV Sluice created without nodeAffinity gets the FUSE selector's", func() bool {
		return env.Client.Get(ctx, pvKey, pv) == nil && cmp.Equal(affinity(rt.Spec.Fuse.NodeSelector), pv.Spec.NodeAffinity)
	})
	if pv.UID != old.UID {
		t.Fatalf("the PV was replaced (UID %s, was %s), not updated in place", pv.UID, old.UID)
	}
	want := []corev1.NodeSelectorRequirement{inReq("arch", "amd64"), inReq("fuse", "ok")}
	if got := pv.Spec.NodeAffinity.Required.NodeSelectorTerms; len(got) != 1 || !cmp.Equal(want, got[0].MatchExpressions) {
		t.Fatalf("PV nodeAffinity = %+v, want one term %+v", got, want)
	}

	// The API server's rule the controller works with: once set, a PV's
	// nodeAffinity cannot be changed.
	changed := pv.DeepCopy()
	changed.Spec.NodeAffinity = affinity(map[string]string{"fuse": "other"})
	if err := env.Client.Update(ctx, changed); !apierrors.IsInvalid(err) {
		t.Fatalf("changing a PV's nodeAffinity: %v, want Invalid (immutable)", err)
	}

	// A Pod uses the Dataset; the FUSE selector changes.
	reader := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Spec: corev1.PodSpec{NodeName: ns + "-somewhere", Containers: []corev1.Container{{Name: "r", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}}},
	}
	if err := env.Client.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}
	edit(t, rt, func(rt *datav1alpha1.JuiceFSRuntime) { rt.Spec.Fuse.NodeSelector = map[string]string{"fuse": "new"} })
	eventually(t, 20*time.Second, "a Warning event says the PV waits for the Pods", func() bool {
		return strings.Contains(runtimeEvents(t, ns, "imagenet"), "Warning VolumeNodeAffinity/Wait: PV "+pvKey.Name+" keeps its nodeAffinity")
	})
	if err := env.Client.Get(ctx, pvKey, pv); err != nil || pv.UID != old.UID || !pv.DeletionTimestamp.IsZero() {
		t.Fatalf("the PV in use was touched: %v, UID %s (was %s), deleting %v", err, pv.UID, old.UID, pv.DeletionTimestamp)
	}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(pvc), pvc); err != nil || !pvc.DeletionTimestamp.IsZero() {
		t.Fatalf("the PVC in use was touched: %v, deleting %v", err, pvc.DeletionTimestamp)
	}

	// The Pod ends: the PVC and PV are replaced. This control plane runs
	// no PVC and PV protection controllers: the test removes their
	// finalizers once the volumes are being deleted, as those would once
	// no Pod uses the claim.
	if err := env.Client.Delete(ctx, reader, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	oldClaim := pvc.UID
	eventually(t, 30*time.Second, "the PVC and PV are replaced, the new PV requiring the new selector", func() bool {
		for _, obj := range []client.Object{&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imagenet"}}, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvKey.Name}}} {
			if env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj) == nil && !obj.GetDeletionTimestamp().IsZero() && len(obj.GetFinalizers()) > 0 {
				obj.SetFinalizers(nil)
				_ = env.Client.Update(ctx, obj)
			}
		}
		newPVC := &corev1.PersistentVolumeClaim{}
		if env.Client.Get(ctx, client.ObjectKeyFromObject(pvc), newPVC) != nil || newPVC.UID == oldClaim || env.Client.Get(ctx, pvKey, pv) != nil {
			return false
		}
		return pv.UID != old.UID && pv.Spec.ClaimRef != nil && pv.Spec.ClaimRef.UID == newPVC.UID &&
			cmp.Equal(affinity(map[string]string{"fuse": "new"}), pv.Spec.NodeAffinity)
	})
	eventually(t, 20*time.Second, "the runtime is Ready again", func() bool {
		r := &datav1alpha1.JuiceFSRuntime{}
		if env.Client.Get(ctx, client.ObjectKeyFromObject(rt), r) != nil {
			return false
		}
		c := meta.FindStatusCondition(r.Status.Conditions, "Ready")
		return c != nil && c.Status == metav1.ConditionTrue
	})
	if ev := runtimeEvents(t, ns, "imagenet"); !strings.Contains(ev, "Normal VolumeNodeAffinity/Replace") || !strings.Contains(ev, "Normal VolumeNodeAffinity/Update") {
		t.Errorf("events:\n%s", ev)
	}
}

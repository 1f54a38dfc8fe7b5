package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// markReady stands in for the kubelet and the StatefulSet controller: it
// reports every desired worker as ready.
func markReady(t *testing.T, sts *appsv1.StatefulSet) {
	t.Helper()
	sts.Status.Replicas, sts.Status.ReadyReplicas, sts.Status.AvailableReplicas = *sts.Spec.Replicas, *sts.Spec.Replicas, *sts.Spec.Replicas
	sts.Status.ObservedGeneration = sts.Generation
	if err := env.Client.Status().Update(testenv.Context(t), sts); err != nil {
		t.Fatal(err)
	}
}

// runtimeEvents lists the events about a JuiceFSRuntime, one
// "<type> <reason>/<action>: <note>" line each.
func runtimeEvents(t *testing.T, ns, name string) string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(testenv.Context(t), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range list.Items {
		if e.Regarding.Kind == "JuiceFSRuntime" && e.Regarding.Name == name {
			fmt.Fprintf(&b, "%s %s/%s: %s\n", e.Type, e.Reason, e.Action, e.Note)
		}
	}
	return b.String()
}

// TestJuiceFSRuntimeLifecycle installs a JuiceFSRuntime's engine release
// with the Helm SDK into the real API server, binds the Dataset once the
// workers are ready, upgrades the release when the spec changes, and cleans
// everything up on deletion.
func TestJuiceFSRuntimeLifecycle(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	ds := testobj.Dataset("imagenet", ns, testobj.WithMounts("juicefs:///imagenet"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("imagenet", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts, fuse := &appsv1.StatefulSet{}, &appsv1.DaemonSet{}
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	eventually(t, 20*time.Second, "Helm installs the workers and the FUSE DaemonSet", func() bool {
		return env.Client.Get(ctx, key("imagenet-worker"), sts) == nil && env.Client.Get(ctx, key("imagenet-fuse"), fuse) == nil
	})
	if sel := fuse.Spec.Template.Spec.NodeSelector; sel["fluid.io/f-"+ns+"-imagenet"] != "true" {
		t.Fatalf("FUSE nodeSelector = %v", sel)
	}
	got := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, key("imagenet"), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase == datav1alpha1.BoundDatasetPhase {
		t.Fatal("the Dataset was bound before its workers were ready")
	}

	markReady(t, sts)
	eventually(t, 20*time.Second, "the Dataset is Bound", func() bool {
		return env.Client.Get(ctx, key("imagenet"), got) == nil && got.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	if len(got.Status.Runtimes) != 1 || got.Status.Runtimes[0].Type != "juicefs" {
		t.Fatalf("status.runtimes = %+v", got.Status.Runtimes)
	}
	pv, pvc := &corev1.PersistentVolume{}, &corev1.PersistentVolumeClaim{}
	if err := env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, "imagenet")}, pv); err != nil {
		t.Fatal(err)
	}
	attrs := pv.Spec.CSI.VolumeAttributes
	if pv.Spec.CSI.Driver != "fuse.csi.fluid.io" || attrs["fluid_path"] != "/runtime-mnt/juicefs/"+ns+"/imagenet/juicefs-fuse" ||
		attrs["mount_pod_node_selector_key"] != "fluid.io/f-"+ns+"-imagenet" || attrs["runtime_name"] != "imagenet" {
		t.Fatalf("PV = %+v", pv.Spec.CSI)
	}
	if err := env.Client.Get(ctx, key("imagenet"), pvc); err != nil {
		t.Fatal(err)
	}
	if pvc.Labels[datav1alpha1.LabelDatasetName] != "imagenet" || pvc.Spec.VolumeName != pv.Name {
		t.Fatalf("PVC = %+v", pvc)
	}
	// The PV names its claim completely (with UID): the PV controller only
	// records the binding.
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Name != pvc.Name || ref.Namespace != ns || ref.UID != pvc.UID {
		t.Fatalf("PV claimRef = %+v, PVC UID %s", pv.Spec.ClaimRef, pvc.UID)
	}
	// The runtime's status is written after the Dataset is bound.
	runtime := &datav1alpha1.JuiceFSRuntime{}
	eventually(t, 10*time.Second, "the runtime reports ready workers", func() bool {
		return env.Client.Get(ctx, key("imagenet"), runtime) == nil && runtime.Status.WorkerPhase == datav1alpha1.RuntimePhaseReady && runtime.Status.Selector != ""
	})

	// A spec change is applied by a Helm upgrade.
	edit(t, runtime, func(rt *datav1alpha1.JuiceFSRuntime) { rt.Spec.Replicas = 3 })
	eventually(t, 20*time.Second, "Helm upgrades the workers to 3 replicas", func() bool {
		return env.Client.Get(ctx, key("imagenet-worker"), sts) == nil && *sts.Spec.Replicas == 3
	})

	// The runtime's story is told in events: the install, the binding, the upgrade.
	eventually(t, 20*time.Second, "events record the release install and upgrade and the binding", func() bool {
		notes := runtimeEvents(t, ns, "imagenet")
		return strings.Contains(notes, "Release/Install") && strings.Contains(notes, "Release/Upgrade") && strings.Contains(notes, "Normal Bound/Reconcile")
	})

	// Deletion waits while a Pod still mounts the Dataset's PVC.
	reader := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}}},
	}
	if err := env.Client.Create(ctx, reader); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, runtime); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime says it is in use by the reader", func() bool {
		if env.Client.Get(ctx, key("imagenet"), runtime) != nil {
			return false
		}
		c := meta.FindStatusCondition(runtime.Status.Conditions, "Ready")
		return c != nil && c.Reason == "InUse" && strings.Contains(c.Message, "reader")
	})
	if err := env.Client.Get(ctx, key("imagenet-worker"), sts); err != nil {
		t.Fatalf("the release was removed while a Pod used the dataset: %v", err)
	}
	if err := env.Client.Get(ctx, key("imagenet"), pvc); err != nil || !pvc.DeletionTimestamp.IsZero() {
		t.Fatalf("the PVC was deleted while a Pod used it: %v", err)
	}

	// Once the Pod finishes, deletion uninstalls the release, removes the
	// volumes and unbinds.
	reader.Status.Phase = corev1.PodSucceeded
	if err := env.Client.Status().Update(ctx, reader); err != nil {
		t.Fatal(err)
	}
	// The Pod watch resumes deletion; well before the 10 s recheck.
	eventually(t, 8*time.Second, "the runtime is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key("imagenet"), &datav1alpha1.JuiceFSRuntime{}))
	})
	if err := env.Client.Get(ctx, key("imagenet-worker"), sts); !apierrors.IsNotFound(err) {
		t.Fatalf("workers left behind: %v", err)
	}
	if err := env.Client.Get(ctx, key("imagenet"), got); err != nil || got.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
		t.Fatalf("Dataset after deletion: %v %+v", err, got.Status)
	}
	err := env.Client.Get(ctx, types.NamespacedName{Name: pvName(ns, "imagenet")}, pv)
	if err == nil && pv.DeletionTimestamp.IsZero() {
		t.Fatal("the PV was not deleted")
	}
	if err := env.Client.Get(ctx, key("imagenet"), pvc); err == nil && pvc.DeletionTimestamp.IsZero() {
		t.Fatal("the PVC was not deleted")
	}
}

package controller_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// boundRuntime creates Dataset and JuiceFSRuntime name in ns, marks its
// workers ready and waits until the Dataset is Bound.
func boundRuntime(t *testing.T, ns, name string) *datav1alpha1.JuiceFSRuntime {
	t.Helper()
	ctx := testenv.Context(t)
	if err := env.Client.Create(ctx, testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///"+name))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	within := testenv.Stretch(20 * time.Second)
	for start := time.Now(); env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name + "-worker"}, sts) != nil; time.Sleep(200 * time.Millisecond) {
		if time.Since(start) > within {
			got := &datav1alpha1.JuiceFSRuntime{}
			_ = env.Client.Get(ctx, client.ObjectKeyFromObject(rt), got)
			t.Fatalf("Helm installs the workers of %s/%s: not within %v; runtime conditions %+v; events:\n%s", ns, name, within, got.Status.Conditions, runtimeEvents(t, ns, name))
		}
	}
	markReady(t, sts)
	ds := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "Dataset "+ns+"/"+name+" is Bound", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	return rt
}

// readerOf is a Pod mounting the Dataset's PVC, on the given node ("":
// not scheduled).
func readerOf(ns, name, dataset, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: ptr.To[int64](1),
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: dataset}}}}},
	}
}

// TestAPodOnALostNodeDoesNotHoldDeletion (M10): a Pod deleted on a node
// that no kubelet answers for stays Terminating for ever; once its grace
// period is over and its node is not Ready, it no longer holds the
// runtime's deletion. While its node is Ready it does.
func TestAPodOnALostNodeDoesNotHoldDeletion(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "stranded"}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-" + ns}}
	if err := env.Client.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(testenv.Context(t), node) })
	setReady := func(status corev1.ConditionStatus) {
		t.Helper()
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		if err := env.Client.Status().Update(ctx, node); err != nil {
			t.Fatal(err)
		}
	}
	setReady(corev1.ConditionTrue)
	rt := boundRuntime(t, ns, "stranded")

	pod := readerOf(ns, "reader", "stranded", node.Name)
	if err := env.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	// No kubelet confirms the end: the Pod stays, Terminating.
	if err := env.Client.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // past the Pod's grace period
	eventually(t, 15*time.Second, "the deletion waits for the Terminating Pod while its node is Ready", func() bool {
		if env.Client.Get(ctx, key, rt) != nil {
			return false
		}
		c := meta.FindStatusCondition(rt.Status.Conditions, "Ready")
		return c != nil && c.Reason == "InUse" && strings.Contains(c.Message, "reader")
	})
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "reader"}, pod); err != nil || pod.DeletionTimestamp.IsZero() {
		t.Fatalf("the reader should still be Terminating: %v", err)
	}

	setReady(corev1.ConditionUnknown)
	eventually(t, 20*time.Second, "the runtime is gone once the Pod's node is lost", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.JuiceFSRuntime{}))
	})
}

// TestForceDeleteGoesOnDespitePods (M10's way out): a Dataset annotated
// data.sluice.io/force-delete=true is deleted, with its runtime, although a
// Pod (here one that never got a node) still uses it; a Warning event names
// the Pod.
func TestForceDeleteGoesOnDespitePods(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "forced"}
	boundRuntime(t, ns, "forced")
	if err := env.Client.Create(ctx, readerOf(ns, "pending-reader", "forced", "")); err != nil {
		t.Fatal(err)
	}
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(ctx, key, ds); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "the deletion waits for the Pod", func() bool {
		return strings.Contains(datasetEvents(t, ns, "forced"), "Warning InUse/Delete")
	})
	if err := env.Client.Get(ctx, key, &datav1alpha1.JuiceFSRuntime{}); err != nil {
		t.Fatalf("the runtime went while a Pod used the Dataset: %v", err)
	}

	// The controller writes the Dataset's status while its deletion waits:
	// edit retries on a conflict.
	edit(t, ds, func(ds *datav1alpha1.Dataset) {
		ds.Annotations = map[string]string{datav1alpha1.AnnotationForceDelete: "true"}
	})
	eventually(t, 20*time.Second, "the Dataset and its runtime are gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.Dataset{})) &&
			apierrors.IsNotFound(env.Client.Get(ctx, key, &datav1alpha1.JuiceFSRuntime{}))
	})
	if events := datasetEvents(t, ns, "forced"); !strings.Contains(events, "Warning ForceDelete/Delete: deleting although Pods use the Dataset (data.sluice.io/force-delete): pending-reader") {
		t.Fatalf("events:\n%s\nwant a ForceDelete warning naming the Pod", events)
	}
}

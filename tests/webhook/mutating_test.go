package webhook_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var serverful = map[string]string{datav1alpha1.LabelServerfulInject: "true"}

// waitForCache gives the webhook's informers a moment to see freshly seeded
// objects; the webhook reads only from its caches.
func waitForCache() { time.Sleep(testenv.Stretch(500 * time.Millisecond)) }

func TestAPIServerStoresMutatedPod(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	pod := datasetPod("trainer", serverful, "imagenet")
	pod.Namespace = ns
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &corev1.Pod{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
		t.Fatal(err)
	}
	if got.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "imagenet" {
		t.Errorf("annotations = %v", got.Annotations)
	}
	if m := got.Spec.Containers[0].VolumeMounts[0].MountPropagation; m == nil || *m != corev1.MountPropagationHostToContainer {
		t.Errorf("mount propagation = %v", m)
	}
	na := got.Spec.Affinity.NodeAffinity
	if na == nil || len(na.PreferredDuringSchedulingIgnoredDuringExecution) != 2 {
		t.Fatalf("want cache and zone preferences, got %+v", got.Spec.Affinity)
	}
	if k := na.PreferredDuringSchedulingIgnoredDuringExecution[0].Preference.MatchExpressions[0].Key; k != "fluid.io/s-"+ns+"-imagenet" {
		t.Errorf("heaviest preference is on %q", k)
	}
	req := na.RequiredDuringSchedulingIgnoredDuringExecution
	if req == nil || len(req.NodeSelectorTerms) != 1 || req.NodeSelectorTerms[0].MatchExpressions[0].Key != "fuse-capable" {
		t.Errorf("FUSE node selector not required: %+v", req)
	}
}

func TestAPIServerReturnsDenial(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "unbound", datav1alpha1.NotBoundDatasetPhase)
	waitForCache()
	pod := datasetPod("trainer", serverful, "unbound")
	pod.Namespace = ns
	err := env.Client.Create(ctxT(t), pod)
	if err == nil {
		t.Fatal("a Pod using an unbound dataset was admitted")
	}
	if !apierrors.IsForbidden(err) {
		t.Fatalf("want Forbidden, got %v", err)
	}
	for _, want := range []string{"dataset " + ns + "/unbound", "not Bound (phase NotBound)", "rule dataset-not-bound"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("denial %q does not mention %q", err, want)
		}
	}
}

func TestAPIServerStoresSidecarPod(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	pod := datasetPod("serve", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, "models")
	pod.Namespace = ns
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &corev1.Pod{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.InitContainers) != 1 || got.Spec.InitContainers[0].Name != "fluid-fuse-0" ||
		got.Spec.InitContainers[0].RestartPolicy == nil || *got.Spec.InitContainers[0].RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Fatalf("no native FUSE sidecar: %+v", got.Spec.InitContainers)
	}
	if v := got.Spec.Volumes[0]; v.HostPath == nil || v.HostPath.Path != "/runtime-mnt/juicefs/"+ns+"/models/juicefs-fuse" {
		t.Fatalf("dataset volume not rewritten to the FUSE mount: %+v", v)
	}
	if got.Labels[datav1alpha1.LabelInjectionDone] != "true" {
		t.Fatalf("no injection marker: %v", got.Labels)
	}
}

func TestOptOutAndUnrelatedPodsAreUntouched(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	optOut := datasetPod("opt-out", map[string]string{datav1alpha1.LabelServerfulInject: "true", datav1alpha1.LabelEnableInjection: "false"}, "imagenet")
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	for _, pod := range []*corev1.Pod{optOut, plain} {
		pod.Namespace = ns
		if err := env.Client.Create(ctxT(t), pod); err != nil {
			t.Fatalf("%s: %v", pod.Name, err)
		}
		if pod.Spec.Affinity != nil || pod.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "" {
			t.Errorf("%s was mutated: %+v %v", pod.Name, pod.Spec.Affinity, pod.Annotations)
		}
	}
}

// TestServerfulPodWithoutDatasetPrefersNodesWithoutCache: by default, as
// in Fluid's default plugin profile, a serverful Pod that uses no dataset
// is stored preferring nodes that hold no cache (PreferNodesWithoutCache).
func TestServerfulPodWithoutDatasetPrefersNodesWithoutCache(t *testing.T) {
	ns := env.Namespace(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns, Labels: serverful},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatal(err)
	}
	want := []corev1.PreferredSchedulingTerm{{Weight: 100, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: datav1alpha1.LabelDatasetNum, Operator: corev1.NodeSelectorOpDoesNotExist},
	}}}}
	if a := pod.Spec.Affinity; a == nil || a.NodeAffinity == nil || !equality.Semantic.DeepEqual(want, a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) {
		t.Fatalf("stored affinity %+v, want only %+v", pod.Spec.Affinity, want)
	}
}

package controller_test

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// workerPod stands in for the StatefulSet controller, the scheduler and the
// kubelet: a worker pod of sts on node, with the given readiness.
func workerPod(t *testing.T, sts *appsv1.StatefulSet, name, node string, ready bool) *corev1.Pod {
	t.Helper()
	ctx := testenv.Context(t)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: sts.Namespace, Labels: sts.Spec.Template.Labels, // as the StatefulSet controller sets them
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sts, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "worker", Image: "juicedata/juicefs-fuse"}}},
	}
	if err := env.Client.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	setPodReady(t, p, ready)
	return p
}

func setPodReady(t *testing.T, p *corev1.Pod, ready bool) {
	t.Helper()
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if err := env.Client.Status().Update(testenv.Context(t), p); err != nil {
		t.Fatal(err)
	}
}

// TestJuiceFSNodeCacheLabels shows the controller labels exactly the nodes
// running ready workers with the Dataset's cache, capacity, dataset-num and
// exclusive labels, follows worker readiness, records the ready workers'
// zones in cacheAffinity, and unlabels the nodes when the runtime is
// deleted.
func TestJuiceFSNodeCacheLabels(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	nodes := []string{ns + "-n1", ns + "-n2", ns + "-n3"}
	for i, n := range nodes {
		labels := map[string]string{"fluid.io/s-h-juicefs-t-other-ds": "1GiB",
			corev1.LabelTopologyZone: fmt.Sprintf("zone-%d", i), corev1.LabelTopologyRegion: "region-1"}
		if err := env.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: labels}}); err != nil {
			t.Fatal(err)
		}
	}
	ds := testobj.Dataset("coco", ns, testobj.WithMounts("juicefs:///coco"))
	ds.Spec.Placement = datav1alpha1.ExclusiveMode
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("coco", ns, 2, testobj.Level(datav1alpha1.SSD, "/mnt/a,/mnt/b", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco-worker"}, sts) == nil
	})
	workerPod(t, sts, "coco-worker-0", nodes[0], true)
	w1 := workerPod(t, sts, "coco-worker-1", nodes[1], true)
	markReady(t, sts)

	cache := "fluid.io/s-" + ns + "-coco"
	want := map[string]string{
		cache:                                    "true",
		"fluid.io/s-juicefs-" + ns + "-coco":     "true",
		"fluid.io/s-h-juicefs-m-" + ns + "-coco": "0B",
		"fluid.io/s-h-juicefs-d-" + ns + "-coco": "10GiB",
		"fluid.io/s-h-juicefs-t-" + ns + "-coco": "10GiB",
		datav1alpha1.LabelDatasetNum:             "2", // this dataset and the other one already there
		datav1alpha1.LabelExclusive:              ns + "_coco",
	}
	labelsOf := func(node string) map[string]string {
		n := &corev1.Node{}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: node}, n); err != nil {
			t.Fatal(err)
		}
		return n.Labels
	}
	hasAll := func(node string) bool {
		l := labelsOf(node)
		for k, v := range want {
			if l[k] != v {
				return false
			}
		}
		return true
	}
	eventually(t, 20*time.Second, "both worker nodes carry the cache labels", func() bool { return hasAll(nodes[0]) && hasAll(nodes[1]) })

	runtime := &datav1alpha1.JuiceFSRuntime{}
	// cacheZones waits for the cacheAffinity to name the ready workers'
	// zones and their region.
	cacheZones := func(what string, zones ...string) {
		t.Helper()
		want := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones},
			{Key: corev1.LabelTopologyRegion, Operator: corev1.NodeSelectorOpIn, Values: []string{"region-1"}},
		}}}
		eventually(t, 10*time.Second, what, func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco"}, runtime) == nil && runtime.Status.CacheAffinity != nil &&
				runtime.Status.CacheAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil &&
				equality.Semantic.DeepEqual(want, runtime.Status.CacheAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
		})
	}
	cacheZones("the runtime's cacheAffinity names both workers' zones", "zone-0", "zone-1")

	// A ready pod that only looks like a worker (the selector's labels, no
	// controller) does not make its node a cache node (reliability audit
	// L12); the next reconcile, for w1 below, would label it if it did.
	lookalike := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lookalike", Namespace: ns, Labels: sts.Spec.Selector.MatchLabels},
		Spec: corev1.PodSpec{NodeName: nodes[2], Containers: []corev1.Container{{Name: "worker", Image: "juicedata/juicefs-fuse"}}}}
	if err := env.Client.Create(ctx, lookalike); err != nil {
		t.Fatal(err)
	}
	setPodReady(t, lookalike, true)

	// A worker that stops being ready no longer advertises its node.
	setPodReady(t, w1, false)
	eventually(t, 20*time.Second, "the unready worker's node loses the labels", func() bool {
		l := labelsOf(nodes[1])
		return l[cache] == "" && l[datav1alpha1.LabelExclusive] == "" && l[datav1alpha1.LabelDatasetNum] == "1"
	})
	if !hasAll(nodes[0]) {
		t.Fatalf("the ready worker's node lost labels: %v", labelsOf(nodes[0]))
	}
	cacheZones("the unready worker's zone leaves the cacheAffinity", "zone-0")
	if l := labelsOf(nodes[2]); l[cache] != "" {
		t.Fatalf("the node of a pod that only looks like a worker was labelled: %v", l)
	}

	if err := env.Client.Delete(ctx, runtime); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the runtime is gone", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco"}, &datav1alpha1.JuiceFSRuntime{}))
	})
	l := labelsOf(nodes[0])
	for k := range want {
		if k == datav1alpha1.LabelDatasetNum {
			continue
		}
		if _, ok := l[k]; ok {
			t.Errorf("label %s left on %s after deletion: %v", k, nodes[0], l)
		}
	}
	if got := l[datav1alpha1.LabelDatasetNum]; got != "1" || l["fluid.io/s-h-juicefs-t-other-ds"] != "1GiB" {
		t.Errorf("other dataset's labels disturbed: %v", fmt.Sprint(l))
	}
}

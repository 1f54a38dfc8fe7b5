package webhook_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestTwoRequiredDatasetsOnDifferentNodes: a serverful Pod that reads two
// Datasets, both labelled fluid.io/dataset.<name>.sched=required, gets one
// required term per Dataset, as Fluid appends them: Kubernetes ORs terms,
// so a node caching either will do, and the runtime's FUSE nodeSelector
// holds in each. With its own choice of GPU the Pod stores
// (a100 OR h100) AND fuse-capable AND (cache a OR cache b). The stored
// affinity is matched against nodes as kube-scheduler matches it.
func TestTwoRequiredDatasetsOnDifferentNodes(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "a", datav1alpha1.BoundDatasetPhase)
	seedDataset(t, ns, "b", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	cacheA, cacheB := datav1alpha1.KeyOf(&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}}).CacheLabelKey(),
		datav1alpha1.KeyOf(&datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}}).CacheLabelKey()

	pod := datasetPod("trainer", map[string]string{
		datav1alpha1.LabelServerfulInject:      "true",
		datav1alpha1.DatasetSchedLabelKey("a"): datav1alpha1.SchedRequired,
		datav1alpha1.DatasetSchedLabelKey("b"): datav1alpha1.SchedRequired,
	}, "a")
	pod.Namespace = ns
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "b", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b"}}})
	pod.Spec.Containers[0].VolumeMounts = append(pod.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "b", MountPath: "/b"})
	gpu := func(v string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: "gpu", Operator: corev1.NodeSelectorOpIn, Values: []string{v}}
	}
	pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{gpu("a100")}}, {MatchExpressions: []corev1.NodeSelectorRequirement{gpu("h100")}}}}}}
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatalf("create: %v", err)
	}
	got := &corev1.Pod{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
		t.Fatal(err)
	}

	in := func(k string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}
	}
	term := func(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: reqs}
	}
	fuse := in("fuse-capable")
	want := []corev1.NodeSelectorTerm{
		term(gpu("a100"), in(cacheA), fuse), term(gpu("a100"), in(cacheB), fuse),
		term(gpu("h100"), in(cacheA), fuse), term(gpu("h100"), in(cacheB), fuse),
	}
	required := got.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if diff := cmp.Diff(want, required.NodeSelectorTerms); diff != "" {
		t.Fatalf("stored required terms (-want +got):\n%s", diff)
	}

	// The nodes of a cluster where a and b are cached on different nodes.
	node := func(name string, labels ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name, Labels: map[string]string{}}}
		for _, l := range labels {
			n.Labels[l] = "true"
		}
		return n
	}
	nodes := []*corev1.Node{
		node("caches-a", cacheA, "fuse-capable"),
		node("caches-b", cacheB, "fuse-capable"),
		node("caches-both", cacheA, cacheB, "fuse-capable"),
		node("caches-none", "fuse-capable"),
		node("caches-a-no-fuse", cacheA),
	}
	for _, n := range nodes {
		n.Labels["gpu"] = "a100"
		if err := env.Client.Create(ctxT(t), n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(context.Background(), n) })
	}
	sel, err := nodeaffinity.NewNodeSelector(required)
	if err != nil {
		t.Fatalf("the stored affinity does not parse as kube-scheduler parses it: %v", err)
	}
	var matching []string
	for _, n := range nodes {
		stored := &corev1.Node{}
		if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(n), stored); err != nil {
			t.Fatal(err)
		}
		if sel.Match(stored) {
			matching = append(matching, stored.Name)
		}
	}
	if wantNodes := []string{ns + "-caches-a", ns + "-caches-b", ns + "-caches-both"}; !slices.Equal(matching, wantNodes) {
		t.Errorf("nodes matching the Pod's required affinity = %v, want %v (a node caching either dataset, with FUSE)", matching, wantNodes)
	}
}

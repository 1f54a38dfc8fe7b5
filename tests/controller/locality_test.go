package controller_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

func inReq(key string, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

// TestCacheAffinityFollowsTheWorkersZones: the runtime's
// status.cacheAffinity is the Dataset's nodeAffinity with the workers'
// nodeSelector AND-ed in (as the chart renders them into the worker
// StatefulSet), narrowed to the zone and region of the nodes running ready
// workers, and follows the workers as they move between zones.
func TestCacheAffinityFollowsTheWorkersZones(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	zones := map[string][2]string{"n1": {"zone-a", "region-1"}, "n2": {"zone-b", "region-1"}, "n3": {"zone-c", "region-2"}}
	nodes := map[string]string{}
	for n, zr := range zones {
		name := ns + "-" + n
		nodes[n] = name
		labels := map[string]string{corev1.LabelTopologyZone: zr[0], corev1.LabelTopologyRegion: zr[1], "ssd": "true"}
		if err := env.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); err != nil {
			t.Fatal(err)
		}
	}
	ds := testobj.Dataset("coco", ns, testobj.WithMounts("juicefs:///coco"))
	ds.Spec.NodeAffinity = &datav1alpha1.CacheableNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
		{MatchExpressions: []corev1.NodeSelectorRequirement{inReq(corev1.LabelTopologyZone, "zone-a", "zone-b", "zone-c")}},
	}}}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("coco", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	rt.Spec.Worker.NodeSelector = map[string]string{"ssd": "true"}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco-worker"}, sts) == nil
	})
	if a := sts.Spec.Template.Spec.Affinity; a == nil || a.NodeAffinity == nil || sts.Spec.Template.Spec.NodeSelector["ssd"] != "true" {
		t.Fatalf("the chart did not render the Dataset's nodeAffinity and the worker nodeSelector: %+v, %v", a, sts.Spec.Template.Spec.NodeSelector)
	}
	w0 := workerPod(t, sts, "coco-worker-0", nodes["n1"], true)
	markReady(t, sts)

	// expect waits until the cacheAffinity's one term is the worker
	// nodeSelector's requirement, then the workers' zones and region.
	expect := func(what string, zones []string, region string) {
		t.Helper()
		want := []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			inReq("ssd", "true"), inReq(corev1.LabelTopologyZone, zones...), inReq(corev1.LabelTopologyRegion, region),
		}}}
		var got *corev1.NodeAffinity
		eventually(t, 20*time.Second, what, func() bool {
			r := &datav1alpha1.JuiceFSRuntime{}
			if env.Client.Get(ctx, client.ObjectKeyFromObject(rt), r) != nil || r.Status.CacheAffinity == nil || r.Status.CacheAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
				return false
			}
			got = r.Status.CacheAffinity
			return cmp.Equal(want, got.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
		})
	}
	expect("the cacheAffinity names the worker's zone and region", []string{"zone-a"}, "region-1")

	// The worker moves to zone-b: its pod is replaced by one on n2.
	if err := env.Client.Delete(ctx, w0, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	w0 = workerPod(t, sts, "coco-worker-0b", nodes["n2"], true)
	expect("the cacheAffinity follows the worker to zone-b", []string{"zone-b"}, "region-1")

	// A second ready worker in zone-a: both zones of the region.
	w1 := workerPod(t, sts, "coco-worker-1", nodes["n1"], true)
	expect("two workers: both zones", []string{"zone-a", "zone-b"}, "region-1")

	// The zone-b worker stops being ready: zone-a only.
	setPodReady(t, w0, false)
	expect("an unready worker's zone no longer counts", []string{"zone-a"}, "region-1")

	// No ready worker: the declared terms, as Fluid writes them.
	setPodReady(t, w1, false)
	eventually(t, 20*time.Second, "without ready workers the cacheAffinity is the declared placement", func() bool {
		r := &datav1alpha1.JuiceFSRuntime{}
		if env.Client.Get(ctx, client.ObjectKeyFromObject(rt), r) != nil || r.Status.CacheAffinity == nil {
			return false
		}
		return cmp.Equal([]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			inReq(corev1.LabelTopologyZone, "zone-a", "zone-b", "zone-c"), inReq("ssd", "true"),
		}}}, r.Status.CacheAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
	})
}

package controller_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestAlluxioCacheStatesFromTheLeadingMaster shows that for an engine whose
// masters report the whole cluster, the cache states are the leading
// master's figures, not diluted by a standby master that reports none.
func TestAlluxioCacheStatesFromTheLeadingMaster(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	page, leader := samplePage(t, "alluxio", alluxio.ParseMetrics)
	ds := testobj.Dataset("coco", ns, testobj.WithMounts("s3://bucket/coco"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "coco", Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			_ = env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco"}, rt)
			t.Logf("runtime conditions: %+v", rt.Status.Conditions)
		}
	})
	src, _ := alluxio.Engine{}.CacheMetrics(rt)
	path := src.Paths[0]
	metricsPod(t, ns, "coco-master-0", src.Selector, servePage(t, path, page))
	metricsPod(t, ns, "coco-master-1", src.Selector, servePage(t, path, []byte("# standby: no cluster metrics\n")))
	readyMastersAndWorkers(t, ns, "coco")
	want := engines.CacheStates(leader, 2<<30, 0)
	got := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset reports the leading master's cache states", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco"}, got) == nil && sameStates(got.Status.CacheStates, want)
	})
	// Fluid's hit and throughput ratios for Alluxio, local and remote, as
	// byte ratios: the recorded page's 10GiB of cache reads all came over
	// the network, against 5GiB from the under storage.
	for k, v := range map[datav1alpha1.CacheStateName]string{
		datav1alpha1.CacheHitRatio: "66.7%", datav1alpha1.LocalHitRatio: "0.0%", datav1alpha1.RemoteHitRatio: "66.7%",
		datav1alpha1.CacheThroughputRatio: "66.7%", datav1alpha1.LocalThroughputRatio: "0.0%", datav1alpha1.RemoteThroughputRatio: "66.7%",
	} {
		if got.Status.CacheStates[k] != v {
			t.Errorf("status.cacheStates.%s = %q, want %q", k, got.Status.CacheStates[k], v)
		}
	}
}

package controller_test

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// juicefsMetrics is a JuiceFS client's /metrics page with the given figures.
func juicefsMetrics(cached, hits, misses int) string {
	return fmt.Sprintf(`# TYPE juicefs_blockcache_bytes gauge
juicefs_blockcache_bytes{mp="/m",vol_name="v"} %d
# TYPE juicefs_blockcache_hits counter
juicefs_blockcache_hits{mp="/m",vol_name="v"} %d
# TYPE juicefs_blockcache_miss counter
juicefs_blockcache_miss{mp="/m",vol_name="v"} %d
# TYPE juicefs_blockcache_hit_bytes counter
juicefs_blockcache_hit_bytes{mp="/m",vol_name="v"} %d
# TYPE juicefs_blockcache_miss_bytes counter
juicefs_blockcache_miss_bytes{mp="/m",vol_name="v"} %d
`, cached, hits, misses, hits*4096, misses*4096)
}

// metricsPod stands in for a running engine pod with the given labels whose
// metrics are served at 127.0.0.1:port (the container port named "metrics").
func metricsPod(t *testing.T, ns, name string, labels map[string]string, port int) {
	t.Helper()
	namedPortPod(t, ns, name, labels, "metrics", port)
}

// releaseOwner is the controller reference a pod named name gets from the
// release's StatefulSet or DaemonSet it belongs to (named like the pod
// without its last "-" part), and the labels of that workload's pod
// template, as the workload controllers would set them: the controller
// reads only the metrics of its release's pods.
func releaseOwner(t *testing.T, ns, name string) (metav1.OwnerReference, map[string]string) {
	t.Helper()
	workload := name[:strings.LastIndex(name, "-")]
	key := types.NamespacedName{Namespace: ns, Name: workload}
	var (
		ref    *metav1.OwnerReference
		labels map[string]string
	)
	eventually(t, 20*time.Second, "the release creates "+workload, func() bool {
		sts, ds := &appsv1.StatefulSet{}, &appsv1.DaemonSet{}
		switch {
		case env.Client.Get(testenv.Context(t), key, sts) == nil:
			ref, labels = metav1.NewControllerRef(sts, appsv1.SchemeGroupVersion.WithKind("StatefulSet")), sts.Spec.Template.Labels
		case env.Client.Get(testenv.Context(t), key, ds) == nil:
			ref, labels = metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet")), ds.Spec.Template.Labels
		}
		return ref != nil
	})
	return *ref, labels
}

// namedPortPod is metricsPod with the container port named portName.
func namedPortPod(t *testing.T, ns, name string, labels map[string]string, portName string, port int) {
	t.Helper()
	ctx := testenv.Context(t)
	owner, template := releaseOwner(t, ns, name)
	all := maps.Clone(template)
	maps.Copy(all, labels)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: all, OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "engine", Image: "engine",
			Ports: []corev1.ContainerPort{{Name: portName, ContainerPort: int32(port)}}}}},
	}
	if err := env.Client.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}}}
	if err := env.Client.Status().Update(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// TestJuiceFSCacheStates shows a bound runtime's cache states come from its
// FUSE pods' metrics, are written to the runtime and the Dataset, skip a pod
// that does not answer, and follow the figures as they change.
func TestJuiceFSCacheStates(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	ds := testobj.Dataset("mnist", ns, testobj.WithMounts("juicefs:///mnist"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	setDatasetStatus(t, types.NamespacedName{Namespace: ns, Name: "mnist"}, func(s *datav1alpha1.DatasetStatus) { s.UfsTotal = "4GiB" })
	rt := testobj.JuiceFSRuntime("mnist", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}

	var page atomic.Value
	page.Store(juicefsMetrics(1<<30, 85, 15))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = fmt.Fprint(w, page.Load().(string))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	src, _ := juicefs.Engine{}.CacheMetrics(rt)
	metricsPod(t, ns, "mnist-fuse-a", src.Selector, p)
	// A FUSE pod whose metrics port refuses connections is skipped.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	metricsPod(t, ns, "mnist-fuse-b", src.Selector, deadPort)

	sts := &appsv1.StatefulSet{}
	key := types.NamespacedName{Namespace: ns, Name: "mnist"}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "mnist-worker"}, sts) == nil
	})
	markReady(t, sts)

	// Exactly these keys: like Fluid, no local or remote ratios for JuiceFS,
	// whose client counts hits of its own block cache only.
	want := datav1alpha1.CacheStateList{
		datav1alpha1.Cached: "1GiB", datav1alpha1.CacheCapacity: "10GiB", datav1alpha1.CachedPercentage: "25.0%",
		datav1alpha1.CacheHitRatio: "85.0%", datav1alpha1.CacheThroughputRatio: "85.0%",
	}
	got := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset reports its cache states", func() bool {
		return env.Client.Get(ctx, key, got) == nil && sameStates(got.Status.CacheStates, want)
	})
	runtime := &datav1alpha1.JuiceFSRuntime{}
	eventually(t, 10*time.Second, "the runtime reports the same cache states", func() bool {
		return env.Client.Get(ctx, key, runtime) == nil && sameStates(runtime.Status.CacheStates, want)
	})

	// The controller re-reads the metrics: more cached, more hits.
	page.Store(juicefsMetrics(3<<30, 950, 50))
	want[datav1alpha1.Cached], want[datav1alpha1.CachedPercentage] = "3GiB", "75.0%"
	want[datav1alpha1.CacheHitRatio], want[datav1alpha1.CacheThroughputRatio] = "95.0%", "95.0%"
	eventually(t, 20*time.Second, "the cache states follow the metrics", func() bool {
		return env.Client.Get(ctx, key, got) == nil && sameStates(got.Status.CacheStates, want)
	})
}

func sameStates(got, want datav1alpha1.CacheStateList) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

package controller_test

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/tests/testobj"
)

// TestAlluxioCacheStatesFromTheLeadingMaster shows that for an engine whose
// masters report the whole cluster, the cache states are the leading
// master's figures, not diluted by a standby master that reports none.
func TestAlluxioCacheStatesFromTheLeadingMaster(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	page, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "engines", "alluxio", "testdata", "master-metrics.prom"))
	if err != nil {
		t.Fatal(err)
	}
	leader, err := alluxio.ParseMetrics(bytes.NewReader(page))
	if err != nil || leader.CachedBytes == 0 {
		t.Fatalf("sample page: %+v, %v", leader, err)
	}
	serve := func(body []byte) int {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != (alluxio.Engine{}).MetricsPath() {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write(body)
		}))
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		p, _ := strconv.Atoi(port)
		return p
	}
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
	metricsPod(t, ns, "coco-master-0", alluxio.Engine{}.CachePods(rt), serve(page))
	metricsPod(t, ns, "coco-master-1", alluxio.Engine{}.CachePods(rt), serve([]byte("# standby: no cluster metrics\n")))
	for _, name := range []string{"coco-master", "coco-worker"} {
		sts := &appsv1.StatefulSet{}
		eventually(t, 20*time.Second, "Helm installs "+name, func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, sts) == nil
		})
		markReady(t, sts)
	}
	want := engines.CacheStates(leader, 2<<30, 0)
	got := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset reports the leading master's cache states", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "coco"}, got) == nil && sameStates(got.Status.CacheStates, want)
	})
}

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
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/tests/testobj"
)

// TestJindoCacheStatesFromTheMastersRPCPort shows the Jindo cache states
// are read from the master's RPC port (the container port "rpc", not
// "metrics"), at whichever documented path serves the page: here the oldest
// one, after the newer paths answer 404.
func TestJindoCacheStatesFromTheMastersRPCPort(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	page, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "engines", "jindo", "testdata", "master-metrics.prom"))
	if err != nil {
		t.Fatal(err)
	}
	master, err := jindo.ParseMetrics(bytes.NewReader(page))
	if err != nil || master.CachedBytes == 0 {
		t.Fatalf("sample page: %+v, %v", master, err)
	}
	paths := jindo.Engine{}.MetricsPaths()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != paths[len(paths)-1] {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)

	ds := testobj.Dataset("logs", ns, testobj.WithMounts("oss://bucket/logs"))
	ds.Spec.Mounts[0].Options = map[string]string{"fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com"}
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.JindoRuntime{ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: ns}, Spec: datav1alpha1.JindoRuntimeSpec{
		Replicas: 2, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.SSD, "/mnt/jindo", "20Gi")}}}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	namedPortPod(t, ns, "logs-master-0", jindo.Engine{}.CachePods(rt), jindo.Engine{}.MetricsPortName(), p)
	for _, name := range []string{"logs-master", "logs-worker"} {
		sts := &appsv1.StatefulSet{}
		eventually(t, 20*time.Second, "Helm installs "+name, func() bool {
			return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, sts) == nil
		})
		markReady(t, sts)
	}
	want := engines.CacheStates(master, 2*20<<30, 0)
	got := &datav1alpha1.Dataset{}
	eventually(t, 20*time.Second, "the Dataset reports the master's cache states", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "logs"}, got) == nil && sameStates(got.Status.CacheStates, want)
	})
}

package controller_test

import (
	"bytes"
	"context"
	"io"
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
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// samplePage reads an engine's recorded master metrics page
// (engines/<engine>/testdata/master-metrics.prom) and the counters parse
// finds in it, which must show a cache.
func samplePage(t *testing.T, engine string, parse func(io.Reader) (engines.CacheCounters, error)) ([]byte, engines.CacheCounters) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "engines", engine, "testdata", "master-metrics.prom"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := parse(bytes.NewReader(page))
	if err != nil || c.CachedBytes == 0 {
		t.Fatalf("sample page: %+v, %v", c, err)
	}
	return page, c
}

// servePage serves body at path (404 anywhere else) and returns the local
// port it listens on.
func servePage(t *testing.T, path string, body []byte) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
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

// readyMastersAndWorkers waits until Helm has installed the runtime's
// master and worker StatefulSets and marks both Ready.
func readyMastersAndWorkers(t *testing.T, ns, name string) {
	t.Helper()
	for _, sts := range []string{name + "-master", name + "-worker"} {
		obj := &appsv1.StatefulSet{}
		eventually(t, 20*time.Second, "Helm installs "+sts, func() bool {
			return env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ns, Name: sts}, obj) == nil
		})
		markReady(t, obj)
	}
}

// createJindo creates the Dataset "logs" on OSS and its JindoRuntime with
// two workers caching 20Gi each on SSD.
func createJindo(ctx context.Context, t *testing.T, ns string) *datav1alpha1.JindoRuntime {
	t.Helper()
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
	return rt
}

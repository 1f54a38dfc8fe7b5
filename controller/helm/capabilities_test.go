package helm

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"k8s.io/client-go/rest"
)

// TestCapabilitiesAreReadOnceUnderTheLock: the first actions of one
// namespace's Client, started together (two runtimes reconciled at once),
// read the cluster's capabilities once between them, under the Client's
// lock (run with -race: Helm's own lazy read raced), while other actions
// take their configurations (actionConfig, knowing) from the same Client.
func TestCapabilitiesAreReadOnceUnderTheLock(t *testing.T) {
	var versions atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/version":
			versions.Add(1)
			_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
		case "/api":
			_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"]}`))
		case "/apis":
			_, _ = w.Write([]byte(`{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c, err := NewClientForConfig(NewDiscovery(&rest.Config{Host: srv.URL}), "team-a", func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	if versions.Load() != 0 {
		t.Fatal("making the Client read the server's version; it is read at the first action")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := c.ensureCapabilities(); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { _ = c.actionConfig() })
		wg.Go(func() { _ = c.knowing("r", nil).actionConfig() })
	}
	wg.Wait()
	if n := versions.Load(); n != 1 {
		t.Errorf("the server's version was read %d times, want once", n)
	}
	for _, cfg := range []*action.Configuration{c.actionConfig(), c.knowing("r", nil).actionConfig()} {
		if caps := cfg.Capabilities; caps == nil || caps.KubeVersion.Version != "v1.37.2" || !caps.APIVersions.Has("v1") {
			t.Errorf("an action's capabilities %+v", caps)
		}
	}
}

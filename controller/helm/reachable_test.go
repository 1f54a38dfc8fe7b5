package helm

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// TestReachabilityProbedOncePerTTL: Helm's actions each start with a
// reachability probe (GET /version); the client probes once per ttl, and
// a failing probe is still reported.
func TestReachabilityProbedOncePerTTL(t *testing.T) {
	var probes atomic.Int32
	srv := versionServer(&probes)
	defer srv.Close()
	c, err := NewClientForConfig(NewDiscovery(&rest.Config{Host: srv.URL}), "team-a", func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	k, ok := c.cfg.KubeClient.(*probedKube)
	if !ok {
		t.Fatalf("Helm's Kubernetes client is a %T", c.cfg.KubeClient)
	}
	for range 3 {
		if err := k.IsReachable(); err != nil {
			t.Fatal(err)
		}
	}
	if n := probes.Load(); n != 1 {
		t.Errorf("%d probes within the ttl, want 1", n)
	}
	k.ttl = 0
	if err := k.IsReachable(); err != nil || probes.Load() != 2 {
		t.Errorf("after the ttl: %v, %d probes, want 2", err, probes.Load())
	}
	srv.Close()
	if err := k.IsReachable(); err == nil {
		t.Error("an unreachable API server was reported reachable")
	}
}

// TestConcurrentFirstProbes: reconcilers sharing a client probe at once
// (go test -race caught Helm's lazily created clientset written by two
// first probes); concurrent first probes make one request.
func TestConcurrentFirstProbes(t *testing.T) {
	var probes atomic.Int32
	srv := versionServer(&probes)
	defer srv.Close()
	c, err := NewClientForConfig(NewDiscovery(&rest.Config{Host: srv.URL}), "team-a", func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := c.cfg.KubeClient.IsReachable(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := probes.Load(); n != 1 {
		t.Errorf("%d probes from 8 concurrent first calls, want 1", n)
	}
}

// versionServer answers GET /version as an API server does, counting the
// probes.
func versionServer(probes *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/version" {
			http.NotFound(w, r)
			return
		}
		probes.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
}

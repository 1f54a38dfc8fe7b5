package scale_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/sluice-data/sluice/tests/support/simcluster"
)

// saveLog copies the controller's log into SLUICE_BENCH_PROFILE_DIR, when
// set (the cluster's directory is removed when the run ends).
func saveLog(b *testing.B, p *simcluster.Process) {
	dir := os.Getenv("SLUICE_BENCH_PROFILE_DIR")
	if dir == "" {
		return
	}
	data, err := os.ReadFile(p.LogPath())
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "sluice-controller.log"), data, 0o644)
	}
	if err != nil {
		b.Log(err)
	}
}

// profileAPIServer saves, when SLUICE_BENCH_PROFILE_DIR names a
// directory, a CPU profile of the API server taken from `after` into the
// run for `span`, and returns a function that saves its metrics (request
// counts by resource and verb, watch events by kind), to show where the
// API server's time goes while Datasets are bound.
func profileAPIServer(ctx context.Context, b *testing.B, cfg *rest.Config, after, span time.Duration) func() {
	dir := os.Getenv("SLUICE_BENCH_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	get := func(path string, params map[string]string) ([]byte, error) {
		req := cs.CoreV1().RESTClient().Get().AbsPath(path).Timeout(span + time.Minute)
		for k, v := range params {
			req = req.Param(k, v)
		}
		return req.DoRaw(ctx)
	}
	save := func(name string, data []byte, err error) {
		if err != nil {
			b.Logf("%s: %v", name, err)
			return
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Log(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-time.After(after):
		case <-ctx.Done():
			return
		}
		data, err := get("/debug/pprof/profile", map[string]string{"seconds": strconv.Itoa(int(span.Seconds()))})
		save("kube-apiserver.cpu.pprof", data, err)
	}()
	return func() {
		<-done
		data, err := get("/metrics", nil)
		save("kube-apiserver.metrics.txt", data, err)
	}
}

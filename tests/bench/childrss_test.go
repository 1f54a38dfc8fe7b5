package bench_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/webhook"
)

// A cache's memory as the controller's or webhook's process sees it: the
// benchmark process itself created the objects and held the untrimmed
// cache, so its RSS says little. processRSS runs this test binary again
// (TestCacheProcess) with nothing but the cache: it syncs the cache of
// the given shape, collects the garbage, returns freed memory to the
// system and reports its VmRSS, which the benchmark reports as
// process-rss-MiB.

const (
	childShape      = "SLUICE_BENCH_CHILD_SHAPE"
	childKubeconfig = "SLUICE_BENCH_CHILD_KUBECONFIG"
)

// shapes are the caches a child can hold: the informer it syncs and the
// options it syncs it with.
var shapes = map[string]func() (cache.Options, client.Object){
	"controller-pods": func() (cache.Options, client.Object) { return controller.CacheOptions(), &corev1.Pod{} },
	"webhook-claims": func() (cache.Options, client.Object) {
		return webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace), &corev1.PersistentVolumeClaim{}
	},
}

// processRSS reports the RSS of a process holding the cache of shape.
func processRSS(b *testing.B, shape string) {
	b.Helper()
	dir := b.TempDir()
	kubeconfig, err := env.WriteKubeconfig(dir)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(benchCtx, os.Args[0], "-test.run=^TestCacheProcess$", "-test.v")
	cmd.Env = append(os.Environ(), childShape+"="+shape, childKubeconfig+"="+kubeconfig, "GOGC="+strconv.Itoa(webhook.DefaultGCPercent))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("the cache process failed: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "rss-bytes "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(n)/(1<<20), "process-rss-MiB")
			return
		}
	}
	b.Fatalf("the cache process reported no RSS:\n%s", out)
}

// TestCacheProcess is the child of processRSS; it does nothing unless run
// by it.
func TestCacheProcess(t *testing.T) {
	shape, kubeconfig := os.Getenv(childShape), os.Getenv(childKubeconfig)
	if shape == "" {
		t.Skip("run by the cache-memory benchmarks only")
	}
	newShape, ok := shapes[shape]
	if !ok {
		t.Fatalf("no cache shape %q", shape)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	opts, kind := newShape()
	opts.Scheme = sluicescheme.New()
	c, err := cache.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	go func() { _ = c.Start(ctx) }()
	if _, err := c.GetInformer(ctx, kind); err != nil {
		t.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	runtime.GC()
	debug.FreeOSMemory()
	fmt.Printf("rss-bytes %d\n", rssBytes())
	runtime.KeepAlive(c)
}

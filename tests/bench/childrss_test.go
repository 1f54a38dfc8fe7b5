package bench_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
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
// process-rss-MiB, with its heap's spans in use and live bytes
// (process-heap-MiB, process-live-MiB) and how many times the cache called
// its transform per object (transforms/object). With
// SLUICE_BENCH_PROFILE_DIR set, the child writes its heap profile there
// (<shape>.heap.pprof).

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
	figures := map[string]int64{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(l, f[0]+" ") {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			figures[f[0]] = n
		}
	}
	if _, ok := figures["rss-bytes"]; !ok || figures["objects"] == 0 {
		b.Fatalf("the cache process reported no RSS or no objects:\n%s", out)
	}
	b.ReportMetric(float64(figures["rss-bytes"])/(1<<20), "process-rss-MiB")
	b.ReportMetric(float64(figures["heap-bytes"])/(1<<20), "process-heap-MiB")
	b.ReportMetric(float64(figures["live-bytes"])/(1<<20), "process-live-MiB")
	b.ReportMetric(float64(figures["transforms"])/float64(figures["objects"]), "transforms/object")
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
	var transforms atomic.Int64
	if t := opts.DefaultTransform; t != nil {
		opts.DefaultTransform = func(obj any) (any, error) { transforms.Add(1); return t(obj) }
	}
	for obj, by := range opts.ByObject {
		if t := by.Transform; t != nil {
			by.Transform = func(obj any) (any, error) { transforms.Add(1); return t(obj) }
			opts.ByObject[obj] = by
		}
	}
	c, err := cache.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	go func() { _ = c.Start(ctx) }()
	inf, err := c.GetInformer(ctx, kind)
	if err != nil {
		t.Fatal(err)
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	objects := len(inf.(interface{ GetStore() toolscache.Store }).GetStore().ListKeys())
	runtime.GC()
	debug.FreeOSMemory()
	inUse, live := heapInUse()
	fmt.Printf("rss-bytes %d\nheap-bytes %d\nlive-bytes %d\ntransforms %d\nobjects %d\n", rssBytes(), inUse, live, transforms.Load(), objects)
	if dir := os.Getenv("SLUICE_BENCH_PROFILE_DIR"); dir != "" {
		f, err := os.Create(filepath.Join(dir, shape+".heap.pprof"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
	runtime.KeepAlive(c)
}

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
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
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
// (<shape>.heap.pprof). The child runs with the webhook's GOGC, or
// SLUICE_BENCH_CHILD_GOGC when set.

const (
	childShape      = "SLUICE_BENCH_CHILD_SHAPE"
	childKubeconfig = "SLUICE_BENCH_CHILD_KUBECONFIG"
)

// shape is a cache a child can hold: the informers it syncs, the options
// it syncs them with, and what else the process holds beside them (nil:
// nothing).
type shape struct {
	opts  cache.Options
	kinds []client.Object
	also  func(context.Context, cache.Cache) (any, error)
}

// shapes are the caches a child can hold.
var shapes = map[string]func() shape{
	"controller-pods": func() shape {
		return shape{opts: controller.CacheOptions(), kinds: []client.Object{&corev1.Pod{}}}
	},
	"webhook-claims": func() shape {
		return shape{opts: webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace),
			kinds: []client.Object{&corev1.PersistentVolumeClaim{}}}
	},
	// Every informer the webhook's pipelines read, as it syncs them, and
	// the default policies compiled as the webhook compiles them.
	"webhook-informed": func() shape {
		return shape{opts: webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace),
			kinds: webhook.Informed(), also: func(ctx context.Context, _ cache.Cache) (any, error) { return compiledDefaults(ctx) }}
	},
	// As webhook-informed, and the mutating handler (decision cache off)
	// after it admitted a Pod of every seeded dataset, as a FUSE sidecar
	// Pod: its memos hold every dataset volume.
	"webhook-admitted": func() shape {
		return shape{opts: webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace),
			kinds: webhook.Informed(), also: admittedEveryDataset}
	},
}

// compiledDefaults compiles the default policies into an engine, as the
// webhook does.
func compiledDefaults(ctx context.Context) (*policy.Engine, error) {
	bundle, err := policy.DefaultBundle()
	if err != nil {
		return nil, err
	}
	e := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery).Specialising(false)
	return e, e.Load(ctx, bundle)
}

// admittedEveryDataset builds the mutating handler on c, as the webhook
// does, and has it admit one Pod of each of the benchDatasets datasets.
func admittedEveryDataset(ctx context.Context, c cache.Cache) (any, error) {
	e, err := compiledDefaults(ctx)
	if err != nil {
		return nil, err
	}
	changes := &snapshot.Changes{}
	if err := changes.Track(ctx, c, snapshot.SourceKinds()...); err != nil {
		return nil, err
	}
	h := webhook.NewMutatingHandler(e, c, changes, true, 0, 0)
	for i, r := range podRequests(benchDatasets, map[string]string{datav1alpha1.LabelServerlessInject: "true"}) {
		if resp := h.Handle(ctx, r); !resp.Allowed || len(resp.Patches) == 0 {
			return nil, fmt.Errorf("request %d: allowed=%v patches=%d %+v", i, resp.Allowed, len(resp.Patches), resp.Result)
		}
	}
	return h, nil
}

// processRSS reports the RSS of a process holding the cache of shape.
func processRSS(b *testing.B, name string) {
	b.Helper()
	dir := b.TempDir()
	kubeconfig, err := env.WriteKubeconfig(dir)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(benchCtx, os.Args[0], "-test.run=^TestCacheProcess$", "-test.v")
	gogc := os.Getenv("SLUICE_BENCH_CHILD_GOGC")
	if gogc == "" {
		gogc = strconv.Itoa(webhook.DefaultGCPercent)
	}
	cmd.Env = append(os.Environ(), childShape+"="+name, childKubeconfig+"="+kubeconfig, "GOGC="+gogc)
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("the cache process failed: %v\n%s", err, out)
	}
	figures := childFigures(b, out)
	if _, ok := figures["rss-bytes"]; !ok || figures["objects"] == 0 {
		b.Fatalf("the cache process reported no RSS or no objects:\n%s", out)
	}
	b.ReportMetric(float64(figures["rss-bytes"])/(1<<20), "process-rss-MiB")
	b.ReportMetric(float64(figures["heap-bytes"])/(1<<20), "process-heap-MiB")
	b.ReportMetric(float64(figures["live-bytes"])/(1<<20), "process-live-MiB")
	b.ReportMetric(float64(figures["transforms"])/float64(figures["objects"]), "transforms/object")
	b.ReportMetric(float64(figures["objects"]), "objects")
}

// childFigures are the figures a child process printed, a line each: a
// name at the start of the line and an integer.
func childFigures(b *testing.B, out []byte) map[string]int64 {
	b.Helper()
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
	return figures
}

// TestCacheProcess is the child of processRSS; it does nothing unless run
// by it.
func TestCacheProcess(t *testing.T) {
	name, kubeconfig := os.Getenv(childShape), os.Getenv(childKubeconfig)
	if name == "" {
		t.Skip("run by the cache-memory benchmarks only")
	}
	newShape, ok := shapes[name]
	if !ok {
		t.Fatalf("no cache shape %q", name)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	sh := newShape()
	opts, kinds := sh.opts, sh.kinds
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
	var stores []toolscache.Store
	for _, kind := range kinds {
		inf, err := c.GetInformer(ctx, kind)
		if err != nil {
			t.Fatal(err)
		}
		// Informers restricted to namespaces (the webhook's policy
		// ConfigMaps and FUSE records, a few objects) have no one store;
		// they are not counted.
		if st, ok := inf.(interface{ GetStore() toolscache.Store }); ok {
			stores = append(stores, st.GetStore())
		}
	}
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	objects := 0
	for _, s := range stores {
		objects += len(s.ListKeys())
	}
	var also any
	if sh.also != nil {
		if also, err = sh.also(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	inUse, live := heapInUse()
	fmt.Printf("rss-bytes %d\nheap-bytes %d\nlive-bytes %d\ntransforms %d\nobjects %d\n", rssBytes(), inUse, live, transforms.Load(), objects)
	writeHeapProfile(t, name)
	runtime.KeepAlive(c)
	runtime.KeepAlive(also)
}

package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

const benchNamespace = "bench"

// benchDatasets is how many Bound datasets setup seeds:
// SLUICE_BENCH_DATASETS, default 1,000.
var benchDatasets = envCount("SLUICE_BENCH_DATASETS", 1000)

var (
	setupOnce sync.Once
	setupErr  error
	reader    client.Reader
	changes   *snapshot.Changes
	engine    *policy.Engine
)

// setup seeds benchDatasets Bound datasets (Dataset, JuiceFSRuntime, PVC,
// PV, FUSE DaemonSet each) into the real API server, syncs the webhook's informer
// caches from it, and builds the webhook's handler with the default policies.
func setup(b *testing.B) (client.Reader, *policy.Engine) {
	b.Helper()
	setupOnce.Do(func() {
		ctx := benchCtx
		if setupErr = env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}); setupErr != nil {
			return
		}
		start := time.Now()
		setupErr = parallel(8, benchDatasets, func(i int) error {
			return testobj.SeedDataset(ctx, env.Client, benchNamespace, datasetName(i), datav1alpha1.BoundDatasetPhase)
		})
		if setupErr != nil {
			return
		}
		b.Logf("seeded %d datasets in %v", benchDatasets, time.Since(start))
		opts := webhook.CacheOptions([]string{webhook.DefaultNamespace}, webhook.DefaultNamespace)
		opts.Scheme = sluicescheme.New()
		c, err := cache.New(env.Config, opts)
		if err != nil {
			setupErr = err
			return
		}
		go func() { _ = c.Start(ctx) }()
		for _, obj := range webhook.Informed() {
			if _, setupErr = c.GetInformer(ctx, obj); setupErr != nil {
				return
			}
		}
		if !c.WaitForCacheSync(ctx) {
			setupErr = fmt.Errorf("caches did not sync")
			return
		}
		bundle, err := policy.DefaultBundle()
		if err != nil {
			setupErr = err
			return
		}
		engine = policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery).Specialising(false) // as the webhook's
		if setupErr = engine.Load(ctx, bundle); setupErr != nil {
			return
		}
		reader = c
		// As the webhook does: stamp the objects dataset volumes come from.
		changes = &snapshot.Changes{}
		if setupErr = changes.Track(ctx, c, snapshot.SourceKinds()...); setupErr != nil {
			return
		}
		// The API server and etcd run on this machine too; let them finish
		// the seeding's aftermath (watch fan-out, compaction) so that the
		// benchmarks measure the handlers, not the control plane's backlog.
		time.Sleep(20 * time.Second)
	})
	if setupErr != nil {
		b.Fatal(setupErr)
	}
	return reader, engine
}

func datasetName(i int) string { return fmt.Sprintf("ds-%04d", i) }

func parallel(workers, n int, f func(int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// podRequests returns n admission requests for Pods with the given labels,
// the i-th using dataset i.
func podRequests(n int, labels map[string]string) []admission.Request {
	out := make([]admission.Request, n)
	for i := range out {
		pod := &corev1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{GenerateName: "app-", Namespace: benchNamespace, Labels: labels},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Image: "busybox", Command: []string{"sleep", "3600"},
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
					PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: datasetName(i)}}}},
			},
		}
		raw, err := json.Marshal(pod)
		if err != nil {
			panic(err) // a Pod always marshals
		}
		out[i] = admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID: "bench", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Operation: admissionv1.Create, Namespace: benchNamespace, Object: kruntime.RawExtension{Raw: raw},
		}}
	}
	return out
}

// BenchmarkAdmission measures the mutating handler called in-process, with
// caches synced from a real API server holding 1,000 Bound datasets and the
// default policies. It reports p50 and p99 per Pod kind, with the decision
// cache as the webhook runs it (4,096 decisions, warmed with one pass over the
// 1,000 distinct Pods) and with it disabled, where every request evaluates the
// policies.
func BenchmarkAdmission(b *testing.B) {
	r, engine := setup(b)
	for _, bc := range []struct {
		name      string
		labels    map[string]string
		cacheSize int
	}{
		{"affinity/cached", map[string]string{datav1alpha1.LabelServerfulInject: "true"}, 4096},
		{"sidecar/cached", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, 4096},
		{"affinity/uncached", map[string]string{datav1alpha1.LabelServerfulInject: "true"}, 0},
		{"sidecar/uncached", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			reqs := podRequests(benchDatasets, bc.labels)
			before := liveHeap()
			h := webhook.NewMutatingHandler(engine, r, changes, true, bc.cacheSize, webhook.NewOptions().DecisionCacheBytes)
			ctx := context.Background()
			// One pass over every request first: the cached rows then measure
			// the steady state, in which a Pod repeats an earlier input (the
			// replicas of a Deployment do); the uncached rows are unaffected.
			for _, r := range reqs {
				h.Handle(ctx, r)
			}
			samples := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				resp := h.Handle(ctx, reqs[i%len(reqs)])
				samples = append(samples, time.Since(t0))
				if !resp.Allowed || len(resp.Patches) == 0 {
					b.Fatalf("request %d: allowed=%v patches=%d %+v", i, resp.Allowed, len(resp.Patches), resp.Result)
				}
			}
			b.StopTimer()
			reportPercentiles(b, samples)
			// What the handler keeps between requests (its memos of dataset
			// volumes and namespaces, and its decision cache): the live heap
			// it added (and the samples' few KiB).
			b.ReportMetric(float64(liveHeap()-before)/(1<<20), "retained-MiB")
			writeHeapProfile(b, "admission-"+strings.ReplaceAll(bc.name, "/", "-"))
			runtime.KeepAlive(h)
		})
	}
}

// writeHeapProfile writes the heap's profile to
// $SLUICE_BENCH_PROFILE_DIR/<name>.heap.pprof when that is set.
func writeHeapProfile(tb testing.TB, name string) {
	dir := os.Getenv("SLUICE_BENCH_PROFILE_DIR")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".heap.pprof"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		tb.Fatal(err)
	}
}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

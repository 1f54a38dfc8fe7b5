package scale_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/internal/kubesim"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// refreshInterval is the controller's --cache-refresh-interval in
// BenchmarkCacheRefresh: its default.
const refreshInterval = 30 * time.Second

// BenchmarkCacheRefresh measures the cache-refresh loop with 1,000 bound
// Datasets: `sluice controller` (a separate process, default flags) against
// a real API server and etcd, each Dataset with a one-worker JuiceFSRuntime
// whose FUSE pod serves a JuiceFS metrics page on loopback. The benchmark
// plays the workload controllers (it marks the workers ready and creates
// each FUSE pod, Running at 127.0.0.1) so that no scheduler or fake kubelet
// shares the two cores, and no pod address leaves the machine.
//
// Once every Dataset shows the page's figures, the page changes; it
// reports how long until every Dataset shows the new figures (target:
// within the refresh interval), and over that window and over the next
// full interval with unchanged figures: the controller's CPU time, its API
// requests (client-go's counter) and the pages it read. One interval is
// one refresh of every Dataset.
func BenchmarkCacheRefresh(b *testing.B) {
	for _, n := range []int{benchDatasets()} {
		b.Run(fmt.Sprintf("datasets=%d", n), func(b *testing.B) {
			for range b.N {
				m := refreshAll(b, n)
				b.ReportMetric(m.changed.elapsed.Seconds(), "s-to-refresh-all")
				b.ReportMetric(m.changed.cpu.Seconds(), "cpu-s-changed-refresh")
				b.ReportMetric(m.steady.cpu.Seconds(), "cpu-s-steady-refresh")
				b.ReportMetric(m.changed.requests, "requests-changed-refresh")
				b.ReportMetric(m.steady.requests, "requests-steady-refresh")
				b.ReportMetric(float64(m.steady.scrapes), "pages-read-steady-refresh")
				b.ReportMetric(float64(m.peakRSS)/(1<<20), "peak-RSS-MiB")
			}
		})
	}
}

// benchDatasets is how many Datasets BenchmarkCacheRefresh binds: 1,000,
// or $SLUICE_BENCH_DATASETS (a smaller run to try a change).
func benchDatasets() int {
	if n, err := strconv.Atoi(os.Getenv("SLUICE_BENCH_DATASETS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// window is what the controller did over one span of a run.
type window struct {
	elapsed, cpu time.Duration
	// requests are the controller's API requests; byMethod shows them.
	requests float64
	byMethod string
	// scrapes are the metrics pages the controller read.
	scrapes int64
	// latency is the API server's mean latency of writes, by verb and
	// resource.
	latency string
	// served are the requests the API server served (every client's, the
	// benchmark's polling included), by verb and resource.
	served string
}

type refreshMeasures struct {
	changed, steady window
	peakRSS         int64
}

// metricsPage serves a JuiceFS client's metrics page whose cached bytes
// are gen GiB, and counts the pages served.
type metricsPage struct {
	gen, served atomic.Int64
}

func (p *metricsPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metrics" {
		http.NotFound(w, r)
		return
	}
	p.served.Add(1)
	gen := p.gen.Load()
	fmt.Fprintf(w, "# TYPE juicefs_blockcache_bytes gauge\njuicefs_blockcache_bytes{mp=\"/m\",vol_name=\"v\"} %d\n"+
		"# TYPE juicefs_blockcache_hits counter\njuicefs_blockcache_hits{mp=\"/m\",vol_name=\"v\"} %d\n"+
		"# TYPE juicefs_blockcache_miss counter\njuicefs_blockcache_miss{mp=\"/m\",vol_name=\"v\"} 10\n"+
		"# TYPE juicefs_blockcache_hit_bytes counter\njuicefs_blockcache_hit_bytes{mp=\"/m\",vol_name=\"v\"} %d\n"+
		"# TYPE juicefs_blockcache_miss_bytes counter\njuicefs_blockcache_miss_bytes{mp=\"/m\",vol_name=\"v\"} 40960\n",
		gen<<30, 90*gen, 90*gen*4096)
}

func refreshAll(b *testing.B, n int) refreshMeasures {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	sluice := filepath.Join(testenv.BinDir(), "sluice")
	if _, err := os.Stat(sluice); err != nil {
		b.Fatalf("%v: run `make build`", err)
	}
	env, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			b.Log(err)
		}
	}()
	dir := b.TempDir()
	kubeconfig, err := env.WriteKubeconfig(dir)
	if err != nil {
		b.Fatal(err)
	}
	page := &metricsPage{}
	page.gen.Store(1)
	srv := httptest.NewServer(page)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	pagePort, _ := strconv.Atoi(port)

	programs := kubesim.Programs(dir)
	defer programs.Stop()
	probe, metricsAddr := testenv.FreeAddr(b), testenv.FreeAddr(b)
	ctrl, err := programs.Run(sluice, "controller", "--kubeconfig", kubeconfig, "--leader-elect=false",
		"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probe,
		"--cache-refresh-interval="+refreshInterval.String())
	if err != nil {
		b.Fatal(err)
	}
	metricsURL := "http://" + metricsAddr + "/metrics"
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		if !ctrl.Running() {
			return false, fmt.Errorf("the controller exited:\n%s", ctrl.LogTail(30))
		}
		return workersStarted(ctrl, "juicefsruntime"), nil
	}); err != nil {
		b.Fatal(err)
	}

	cfg := rest.CopyConfig(env.Config)
	cfg.QPS = -1
	cl, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	ns := "bench"
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := apply(ctx, cl, ns, n); err != nil {
		b.Fatal(err)
	}
	if err := playWorkloads(ctx, cl, ns, n, pagePort); err != nil {
		b.Log(ctrl.LogTail(30))
		b.Fatal(err)
	}
	if err := waitCached(ctx, cl, ns, n, "1GiB"); err != nil {
		b.Log(ctrl.LogTail(40))
		b.Log(stages(context.Background(), cl, ns, start))
		b.Fatal(err)
	}
	b.Logf("%d Datasets bound and showing their cache figures %s after the first create", n, time.Since(start).Round(time.Second))

	measure := func(span func() error) window {
		cpu0, scrapes0 := ctrl.CPUTime(), page.served.Load()
		req0, err := controllerRequests(ctx, metricsURL)
		if err != nil {
			b.Fatal(err)
		}
		lat0, served0 := apiServerLatency(ctx, b, cfg), servedByResource(ctx, b, cfg)
		t0 := time.Now()
		if err := span(); err != nil {
			b.Fatal(err)
		}
		w := window{elapsed: time.Since(t0), cpu: ctrl.CPUTime() - cpu0, scrapes: page.served.Load() - scrapes0}
		req1, err := controllerRequests(ctx, metricsURL)
		if err != nil {
			b.Fatal(err)
		}
		w.requests, w.byMethod = req1.total-req0.total, req1.minus(req0)
		w.latency = apiServerLatency(ctx, b, cfg).since(lat0)
		w.served = servedByResource(ctx, b, cfg).minus(served0)
		return w
	}
	b.ResetTimer()
	changed := measure(func() error {
		page.gen.Store(2)
		return waitCached(ctx, cl, ns, n, "2GiB")
	})
	steady := measure(func() error {
		time.Sleep(refreshInterval)
		return nil
	})
	b.StopTimer()
	m := refreshMeasures{changed: changed, steady: steady, peakRSS: ctrl.PeakRSS()}
	saveLog(b, ctrl)
	if errs := reconcileErrors(ctrl); len(errs) > 0 {
		b.Logf("%d reconcile errors, e.g.:\n%s", len(errs), strings.Join(errs[:min(5, len(errs))], "\n"))
	}
	b.Logf("new figures on all %d Datasets %s after the page changed (interval %s): controller CPU %s, %.0f requests (%s), %d pages read; API server served %s, mean write latency %s",
		n, changed.elapsed.Round(100*time.Millisecond), refreshInterval, changed.cpu, changed.requests, changed.byMethod, changed.scrapes, changed.served, changed.latency)
	b.Logf("one interval with unchanged figures: controller CPU %s, %.0f requests (%s), %d pages read; API server served %s, mean write latency %s; controller peak RSS %.1f MiB",
		steady.cpu, steady.requests, steady.byMethod, steady.scrapes, steady.served, steady.latency, float64(m.peakRSS)/(1<<20))
	return m
}

// playWorkloads does what the workload controllers and kubelets would for
// the n runtimes' releases: marks each worker StatefulSet ready, and
// creates each FUSE DaemonSet's pod, Running at 127.0.0.1 with its metrics
// port at port. It returns once all n are done.
func playWorkloads(ctx context.Context, c client.Client, ns string, n, port int) error {
	done := make([]bool, n)
	return wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
		var wg sync.WaitGroup
		next, errs := make(chan int), make(chan error, n)
		for range 8 {
			wg.Go(func() {
				for i := range next {
					ok, err := playOne(ctx, c, ns, datasetName(i), port)
					if err != nil {
						errs <- err
					}
					done[i] = ok
				}
			})
		}
		for i := range n {
			if !done[i] {
				next <- i
			}
		}
		close(next)
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return false, err
		}
		for _, d := range done {
			if !d {
				return false, nil
			}
		}
		return true, nil
	})
}

// playOne readies one release's worker and FUSE pod, once Helm has
// installed them; false while it has not.
func playOne(ctx context.Context, c client.Client, ns, name string, port int) (bool, error) {
	src, _ := juicefs.Engine{}.CacheMetrics(&datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	sts, fuse := &appsv1.StatefulSet{}, &appsv1.DaemonSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name + "-worker"}, sts); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name + datav1alpha1.FuseDaemonSetSuffix}, fuse); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	if sts.Status.ReadyReplicas < *sts.Spec.Replicas {
		r := *sts.Spec.Replicas
		sts.Status.Replicas, sts.Status.ReadyReplicas, sts.Status.AvailableReplicas, sts.Status.ObservedGeneration = r, r, r, sts.Generation
		if err := c.Status().Update(ctx, sts); err != nil {
			return false, client.IgnoreNotFound(err)
		}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-fuse-0", Namespace: ns, Labels: src.Selector,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(fuse, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "fuse", Image: "fuse",
			Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: int32(port)}}}}},
	}
	if err := c.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		return false, err
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
		return false, err
	}
	if pod.Status.Phase != corev1.PodRunning {
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}}}
		if err := c.Status().Update(ctx, pod); err != nil {
			return false, err
		}
	}
	return true, nil
}

// waitCached waits until all n Datasets are Bound and show cached as
// their cached figure, polling once a second.
func waitCached(ctx context.Context, c client.Client, ns string, n int, cached string) error {
	shown := 0
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
		list := &datav1alpha1.DatasetList{}
		if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return false, err
		}
		shown = 0
		for _, d := range list.Items {
			if d.Status.Phase == datav1alpha1.BoundDatasetPhase && d.Status.CacheStates[datav1alpha1.Cached] == cached {
				shown++
			}
		}
		return shown == n, nil
	})
	if err != nil {
		list := &datav1alpha1.DatasetList{}
		example := ""
		if c.List(context.Background(), list, client.InNamespace(ns)) == nil && len(list.Items) > 0 {
			example = fmt.Sprintf("; %s is %s with %v", list.Items[0].Name, list.Items[0].Status.Phase, list.Items[0].Status.CacheStates)
		}
		return fmt.Errorf("%d of %d Datasets show %s cached%s: %w", shown, n, cached, example, err)
	}
	return nil
}

// latencies are a request-latency histogram's sums and counts by method.
type latencies map[string][2]float64

// since shows the mean latency by method of the requests after before.
func (l latencies) since(before latencies) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		if n := l[k][1] - before[k][1]; n > 0 {
			out = append(out, fmt.Sprintf("%s %s", k, time.Duration((l[k][0]-before[k][0])/n*float64(time.Second)).Round(time.Millisecond)))
		}
	}
	return strings.Join(out, ", ")
}

// apiServerLatency reads the API server's request latency histogram
// (apiserver_request_duration_seconds) of the writes (PATCH, PUT), by verb
// and resource.
func apiServerLatency(ctx context.Context, b *testing.B, cfg *rest.Config) latencies {
	out := latencies{}
	for _, m := range apiServerFamilies(ctx, b, cfg)["apiserver_request_duration_seconds"].GetMetric() {
		key, verb := requestKey(m)
		if verb != "PATCH" && verb != "PUT" {
			continue
		}
		v := out[key]
		v[0] += m.GetHistogram().GetSampleSum()
		v[1] += float64(m.GetHistogram().GetSampleCount())
		out[key] = v
	}
	return out
}

// requestKey is an API server request series' "VERB resource[/subresource]".
func requestKey(m *dto.Metric) (key, verb string) {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	key = l["verb"] + " " + l["resource"]
	if l["subresource"] != "" {
		key += "/" + l["subresource"]
	}
	return key, l["verb"]
}

// apiServerFamilies reads the API server's metrics.
func apiServerFamilies(ctx context.Context, b *testing.B, cfg *rest.Config) map[string]*dto.MetricFamily {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	data, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		b.Fatal(err)
	}
	fams, err := engines.ParseFamilies(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	return fams
}

// servedByResource reads the API server's apiserver_request_total by
// verb, resource and subresource.
func servedByResource(ctx context.Context, b *testing.B, cfg *rest.Config) requestCounts {
	out := requestCounts{by: map[string]float64{}}
	for _, m := range apiServerFamilies(ctx, b, cfg)["apiserver_request_total"].GetMetric() {
		key, _ := requestKey(m)
		out.by[key] += engines.SampleValue(m)
		out.total += engines.SampleValue(m)
	}
	return out
}

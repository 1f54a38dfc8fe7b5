package scale_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// BenchmarkDatasetsToBound applies N Datasets, each with a one-worker
// JuiceFSRuntime, to a fresh simulated cluster of 50 nodes and measures
// the time until the controller has bound all of them (release installed,
// worker scheduled and Ready, PV/PVC, node labels), the controller
// process's peak RSS, and the API requests the controller sent per Dataset
// (all, and the writes among them: the floor benchmark,
// BenchmarkFloorObjectsToBound, makes the writes the objects need and
// nothing else). Targets: 500 in under 60 s and under 300 MiB. N is each
// of scaleSizes.
func BenchmarkDatasetsToBound(b *testing.B) {
	for _, n := range scaleSizes() {
		b.Run(fmt.Sprintf("datasets=%d", n), func(b *testing.B) {
			for range b.N {
				m := bindAll(b, n)
				b.ReportMetric(m.elapsed.Seconds(), "s-to-bound")
				b.ReportMetric(float64(m.peakRSS)/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(m.requests.total/float64(n), "requests/dataset")
				b.ReportMetric(m.requests.writes()/float64(n), "writes/dataset")
			}
		})
	}
}

// bindMeasures are one BenchmarkDatasetsToBound run's figures.
type bindMeasures struct {
	elapsed time.Duration
	peakRSS int64
	// requests are the controller's, from the first create to the last
	// Dataset Bound.
	requests requestCounts
}

func bindAll(b *testing.B, n int) bindMeasures {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout(n))
	defer cancel()
	r := startRun(ctx, b, 50, "juicefsruntime")
	defer r.stop()
	c, ctrl, cl, cfg, ns := r.cluster, r.ctrl, r.client, r.cfg, r.ns
	requestsBefore, err := controllerRequests(ctx, r.metrics)
	if err != nil {
		b.Fatal(err)
	}

	b.ResetTimer()
	start := time.Now()
	saveMetrics := profileAPIServer(ctx, b, cfg, 5*time.Second, 30*time.Second)
	if err := apply(ctx, cl, ns, n); err != nil {
		b.Fatal(err)
	}
	bound := 0
	// Listing hundreds of Datasets costs the shared API server; once a
	// second is precise enough for a figure in tens of seconds.
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
		if err := c.Check(); err != nil {
			return false, err
		}
		if !ctrl.Running() {
			return false, fmt.Errorf("the controller exited:\n%s", ctrl.LogTail(30))
		}
		list := &datav1alpha1.DatasetList{}
		if err := cl.List(ctx, list, client.InNamespace(ns)); err != nil {
			return false, ignoreOverloaded(err)
		}
		bound = 0
		for _, d := range list.Items {
			if d.Status.Phase == datav1alpha1.BoundDatasetPhase {
				bound++
			}
		}
		return bound == n, nil
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Log(stages(context.Background(), cl, ns, start))
		b.Fatalf("%d of %d Datasets bound after %s: %v", bound, n, elapsed.Round(time.Millisecond), err)
	}
	m := bindMeasures{elapsed: elapsed, peakRSS: ctrl.PeakRSS()}
	requestsAfter, err := controllerRequests(ctx, r.metrics)
	if err != nil {
		b.Fatal(err)
	}
	m.requests = requestsAfter.since(requestsBefore)
	saveLog(b, ctrl)
	saveMetrics()
	b.Log("\n" + stages(ctx, cl, ns, start))
	b.Log("objects: " + inventory(ctx, cl, ns))
	if errs := reconcileErrors(ctrl); len(errs) > 0 {
		b.Logf("%d reconcile errors, e.g.:\n%s", len(errs), strings.Join(errs[:min(5, len(errs))], "\n"))
	}
	b.Logf("%d Datasets bound in %s; controller peak RSS %.1f MiB; controller requests %.0f (%s)",
		n, elapsed.Round(time.Millisecond), float64(m.peakRSS)/(1<<20), m.requests.total, m.requests.minus(requestCounts{}))
	return m
}

// scaleSizes are the Dataset counts of BenchmarkDatasetsToBound and
// BenchmarkFloorObjectsToBound: 100 to 2,000, and 5,000 as well when
// SLUICE_BENCH_LARGE is set (`make bench-scale`): at the 500-Dataset rate
// (about 9 s a hundred), 5,000 alone would take 7 to 8 minutes a run.
func scaleSizes() []int {
	sizes := []int{100, 500, 1000, 2000}
	if os.Getenv("SLUICE_BENCH_LARGE") != "" {
		sizes = append(sizes, 5000)
	}
	return sizes
}

// runTimeout bounds one run of n Datasets: 10 minutes, or a quarter of a
// second per Dataset when that is longer (about 21 minutes for 5,000,
// nearly three times the 500-Dataset rate of 9 s a hundred).
func runTimeout(n int) time.Duration {
	return max(10*time.Minute, time.Duration(n)*250*time.Millisecond)
}

// run is one benchmark run's simulated cluster, with `sluice controller`
// running against it, and a namespace and client for the benchmark's own
// objects.
type run struct {
	cluster *simcluster.Cluster
	ctrl    *simcluster.Process
	// client and cfg are the benchmark's own, not rate-limited, so that
	// applying is not what is measured.
	client client.Client
	cfg    *rest.Config
	// ns is the namespace the benchmark applies its objects to.
	ns string
	// metrics is the URL of the controller's Prometheus metrics.
	metrics string
	b       *testing.B
}

// startRun starts a simulated cluster with the given number of fake nodes
// and `sluice controller` (bin/sluice) against it, and waits until the
// named controllers have started their workers. Call stop when done.
func startRun(ctx context.Context, b *testing.B, nodes int, controllers ...string) *run {
	sluice := filepath.Join(testenv.BinDir(), "sluice")
	if _, err := os.Stat(sluice); err != nil {
		b.Fatalf("%v: run `make build`", err)
	}
	r := startCluster(ctx, b, nodes)
	ok := false
	defer func() {
		if !ok {
			r.stop()
		}
	}()
	c := r.cluster
	ctrl, readyz, metrics := startController(b, c, sluice)
	r.ctrl, r.metrics = ctrl, metrics
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		resp, err := http.Get(readyz)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	}); err != nil {
		b.Fatalf("controller not ready: %v\n%s", err, ctrl.LogTail(30))
	}
	// /readyz passes before the controllers have started: runtimes created
	// before the JuiceFS controller's informers have listed them would come
	// in its initial list, which controller-runtime's priority queue serves
	// after every other event (here: after all other Datasets, 10-40 s
	// late). Measure a running controller: wait until it has started its
	// workers, which it does once its informers have synced.
	for _, name := range controllers {
		if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
			return workersStarted(ctrl, name), nil
		}); err != nil {
			b.Fatalf("the %s controller did not start: %v\n%s", name, err, ctrl.LogTail(30))
		}
	}
	ok = true
	return r
}

// startCluster starts a simulated cluster with the given number of fake
// nodes, with the benchmark's client and namespace and no controller. Call
// stop when done.
func startCluster(ctx context.Context, b *testing.B, nodes int) *run {
	c, err := simcluster.Start()
	if err != nil {
		b.Fatal(err)
	}
	r := &run{cluster: c, b: b}
	ok := false
	defer func() {
		if !ok {
			r.stop()
		}
	}()
	if _, err := c.AddNodes(ctx, "kwok-node", nodes, 110, nil); err != nil {
		b.Fatal(err)
	}
	r.cfg = rest.CopyConfig(c.Config)
	r.cfg.QPS = -1
	if r.client, err = client.New(r.cfg, client.Options{Scheme: c.Scheme}); err != nil {
		b.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}
	if err := r.client.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	r.ns = ns.Name
	ok = true
	return r
}

// stop stops the cluster, showing the end of every component's log when
// the benchmark failed.
func (r *run) stop() {
	if r.b.Failed() {
		r.b.Log(r.cluster.Logs(20))
	}
	if err := r.cluster.Stop(); err != nil {
		r.b.Log(err)
	}
}

// apply creates n Datasets with one-worker JuiceFS runtimes (Shared
// placement, so several share a node) from a few goroutines.
func apply(ctx context.Context, c client.Client, ns string, n int) error {
	return createEach(ctx, c, n, func(i int) []client.Object { return sharedJuiceFS(ns, i) })
}

// sharedJuiceFS is the i-th Dataset of a run, ds-NNNN, and its one-worker
// JuiceFSRuntime (Shared placement).
func sharedJuiceFS(ns string, i int) []client.Object {
	name := datasetName(i)
	ds := testobj.Dataset(name, ns, testobj.WithMounts("juicefs:///"+name))
	ds.Spec.Placement = datav1alpha1.ShareMode
	return []client.Object{ds, testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache/"+name, "10Gi"))}
}

func datasetName(i int) string { return fmt.Sprintf("ds-%04d", i) }

// createEach creates objects(i), in order, for every i below n, from
// eight goroutines; the objects of an i after one that failed are not
// created. It returns one of the errors.
func createEach(ctx context.Context, c client.Client, n int, objects func(i int) []client.Object) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				for _, obj := range objects(i) {
					if err := c.Create(ctx, obj); err != nil {
						errs <- err
						break
					}
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// startController runs `sluice controller` against the cluster and returns
// it with the URLs of its readiness probe and its metrics.
func startController(b *testing.B, c *simcluster.Cluster, sluice string) (p *simcluster.Process, readyz, metrics string) {
	probe, metricsAddr := testenv.FreeAddr(b), testenv.FreeAddr(b)
	args := []string{"controller", "--kubeconfig", c.Kubeconfig, "--leader-elect=false",
		"--metrics-bind-address=" + metricsAddr, "--health-probe-bind-address=" + probe}
	// SLUICE_BENCH_CONTROLLER_ARGS adds flags, e.g. --pprof-bind-address to
	// profile the controller during a run.
	p, err := c.Run(sluice, append(args, strings.Fields(os.Getenv("SLUICE_BENCH_CONTROLLER_ARGS"))...)...)
	if err != nil {
		b.Fatal(err)
	}
	return p, "http://" + probe + "/readyz", "http://" + metricsAddr + "/metrics"
}

// workersStarted reports whether the named controller has logged that it
// started its workers.
func workersStarted(p *simcluster.Process, controller string) bool {
	for _, line := range logLines(p) {
		if strings.Contains(line, `"msg":"Starting workers"`) && strings.Contains(line, `"controller":"`+controller+`"`) {
			return true
		}
	}
	return false
}

// logLines are the lines the controller has logged so far.
func logLines(p *simcluster.Process) []string {
	data, _ := os.ReadFile(p.LogPath())
	return strings.Split(string(data), "\n")
}

// reconcileErrors are the controller's logged reconcile errors.
func reconcileErrors(p *simcluster.Process) []string {
	var out []string
	for _, line := range logLines(p) {
		if strings.Contains(line, "Reconciler error") {
			out = append(out, line)
		}
	}
	return out
}

package scale_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// BenchmarkDataLoadsToComplete applies N Datasets, each with a one-worker
// JuiceFSRuntime (Shared placement) and a DataLoad of the whole Dataset,
// all at once, to a fresh simulated cluster of 50 nodes, and measures the
// time until every DataLoad is Complete: each Dataset bound (as in
// BenchmarkDatasetsToBound), then its DataLoad's Dataset claimed, the
// JuiceFS warmup release installed, its Job's pod created by the Job
// controller, scheduled, run and completed by kwok, the Job's completion
// observed and the claim released. It reports the controller process's
// peak RSS, its CPU time per DataLoad, the API requests the controller
// sent (its client-go metrics) and the requests the API server served from
// every client (its apiserver_request_total) from the first create to the
// last Complete.
// Targets: 200 in under 60 s and under 300 MiB. It reports the throughput
// as well, DataLoads Complete per second of the run (N over the time), at
// 100 and 200.
func BenchmarkDataLoadsToComplete(b *testing.B) {
	for _, n := range []int{100, 200} {
		b.Run(fmt.Sprintf("dataloads=%d", n), func(b *testing.B) {
			for range b.N {
				m := loadAll(b, n)
				b.ReportMetric(m.elapsed.Seconds(), "s-to-complete")
				b.ReportMetric(float64(n)/m.elapsed.Seconds(), "dataloads/s")
				b.ReportMetric(float64(m.peakRSS)/(1<<20), "peak-RSS-MiB")
				b.ReportMetric(m.controllerRequests, "controller-requests")
				b.ReportMetric(m.apiServerRequests, "apiserver-requests")
				b.ReportMetric(float64(m.controllerCPU.Milliseconds())/float64(n), "controller-cpu-ms/dataload")
			}
		})
	}
}

// loadMeasures are one run's figures.
type loadMeasures struct {
	elapsed time.Duration
	peakRSS int64
	// controllerCPU is the controller's user and system CPU time during
	// the run.
	controllerCPU time.Duration
	// controllerRequests are the requests the controller sent during the
	// run; apiServerRequests those the API server served, from every client.
	controllerRequests, apiServerRequests float64
}

func loadAll(b *testing.B, n int) loadMeasures {
	return runLoads(b, n, func(ctx context.Context, c client.Client, ns string) error { return applyWithLoads(ctx, c, ns, n) }, nil)
}

// runLoads runs apply on a fresh simulated cluster with the controller,
// waits until the n DataLoads it created are Complete and returns the
// run's figures; check, if given, then judges the completed DataLoads.
func runLoads(b *testing.B, n int, apply func(context.Context, client.Client, string) error,
	check func([]datav1alpha1.DataLoad) error) loadMeasures {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute+time.Duration(n)*600*time.Millisecond)
	defer cancel()
	r := startRun(ctx, b, 50, "juicefsruntime", "dataload")
	defer r.stop()
	requestsBefore, err := controllerRequests(ctx, r.metrics)
	if err != nil {
		b.Fatal(err)
	}
	served, err := apiServerRequests(ctx, r.cfg)
	if err != nil {
		b.Fatal(err)
	}

	b.ResetTimer()
	start, cpu := time.Now(), r.ctrl.CPUTime()
	if err := apply(ctx, r.client, r.ns); err != nil {
		b.Fatal(err)
	}
	complete := 0
	var loads []datav1alpha1.DataLoad
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
		if err := r.cluster.Check(); err != nil {
			return false, err
		}
		if !r.ctrl.Running() {
			return false, fmt.Errorf("the controller exited:\n%s", r.ctrl.LogTail(30))
		}
		list := &datav1alpha1.DataLoadList{}
		if err := r.client.List(ctx, list, client.InNamespace(r.ns)); err != nil {
			return false, err
		}
		complete = 0
		for _, dl := range list.Items {
			switch dl.Status.Phase {
			case datav1alpha1.PhaseComplete:
				complete++
			case datav1alpha1.PhaseFailed:
				c := meta.FindStatusCondition(dl.Status.Conditions, "Failed")
				return false, fmt.Errorf("DataLoad %s failed: %+v", dl.Name, c)
			}
		}
		loads = list.Items
		return complete == n, nil
	})
	elapsed, cpu := time.Since(start), r.ctrl.CPUTime()-cpu
	b.StopTimer()
	if err != nil {
		b.Log(stages(context.Background(), r.client, r.ns, start))
		b.Log(loadStages(context.Background(), r.client, r.ns, start))
		b.Fatalf("%d of %d DataLoads Complete after %s: %v", complete, n, elapsed.Round(time.Millisecond), err)
	}
	if check != nil {
		if err := check(loads); err != nil {
			b.Fatal(err)
		}
	}
	m := loadMeasures{elapsed: elapsed, peakRSS: r.ctrl.PeakRSS(), controllerCPU: cpu}
	requestsAfter, err := controllerRequests(ctx, r.metrics)
	if err != nil {
		b.Fatal(err)
	}
	servedAfter, err := apiServerRequests(ctx, r.cfg)
	if err != nil {
		b.Fatal(err)
	}
	m.apiServerRequests = servedAfter.total - served.total
	m.controllerRequests = requestsAfter.total - requestsBefore.total
	saveLog(b, r.ctrl)
	b.Log("\n" + stages(ctx, r.client, r.ns, start) + loadStages(ctx, r.client, r.ns, start))
	if errs := reconcileErrors(r.ctrl); len(errs) > 0 {
		b.Logf("%d reconcile errors, e.g.:\n%s", len(errs), strings.Join(errs[:min(5, len(errs))], "\n"))
	}
	b.Logf("%d DataLoads Complete in %s; controller peak RSS %.1f MiB, CPU %s; controller requests %.0f (%s); API server requests %.0f from all clients",
		n, elapsed.Round(time.Millisecond), float64(m.peakRSS)/(1<<20), cpu.Round(time.Millisecond), m.controllerRequests, requestsAfter.minus(requestsBefore), m.apiServerRequests)
	return m
}

// applyWithLoads creates n Datasets with one-worker JuiceFS runtimes
// (Shared placement) and a DataLoad of each, from a few goroutines.
func applyWithLoads(ctx context.Context, c client.Client, ns string, n int) error {
	return createEach(ctx, c, n, func(i int) []client.Object {
		return append(sharedJuiceFS(ns, i), testobj.DataLoad(datasetName(i), ns, datasetName(i)))
	})
}

// requestCounts are request counters by label value (a method or a verb),
// and their total.
type requestCounts struct {
	by    map[string]float64
	total float64
}

// minus shows the counts of r above those of before, by label value.
func (r requestCounts) minus(before requestCounts) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(r.by)) {
		if d := r.by[k] - before.by[k]; d > 0 {
			out = append(out, fmt.Sprintf("%s %.0f", k, d))
		}
	}
	return strings.Join(out, ", ")
}

// since are the counts of r above those of before.
func (r requestCounts) since(before requestCounts) requestCounts {
	out := requestCounts{by: map[string]float64{}, total: r.total - before.total}
	for k, v := range r.by {
		out.by[k] = v - before.by[k]
	}
	return out
}

// writes are the counts of every method but GET (client-go counts a watch
// as a GET too): the requests that change an object.
func (r requestCounts) writes() float64 {
	w := r.total
	for k, v := range r.by {
		if k == http.MethodGet {
			w -= v
		}
	}
	return w
}

// controllerRequests reads the controller's client-go request counter
// (rest_client_requests_total, by method; Helm's clients count too).
func controllerRequests(ctx context.Context, url string) (requestCounts, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return requestCounts{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return requestCounts{}, fmt.Errorf("reading the controller's metrics: %w", err)
	}
	defer resp.Body.Close()
	return countRequests(resp.Body, "rest_client_requests_total", "method")
}

// apiServerRequests reads the API server's request counter
// (apiserver_request_total, by verb), which counts every client's.
func apiServerRequests(ctx context.Context, cfg *rest.Config) (requestCounts, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return requestCounts{}, err
	}
	data, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return requestCounts{}, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	return countRequests(strings.NewReader(string(data)), "apiserver_request_total", "verb")
}

// countRequests sums a counter family of a Prometheus page, by one label.
func countRequests(page io.Reader, family, label string) (requestCounts, error) {
	fams, err := engines.ParseFamilies(page)
	if err != nil {
		return requestCounts{}, err
	}
	mf, ok := fams[family]
	if !ok {
		return requestCounts{}, fmt.Errorf("the metrics have no %s", family)
	}
	out := requestCounts{by: map[string]float64{}}
	for _, m := range mf.GetMetric() {
		v := engines.SampleValue(m)
		out.total += v
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out.by[l.GetValue()] += v
			}
		}
	}
	return out, nil
}

// loadStages shows, in 5-second buckets after start (the last holds
// everything later), when the DataLoads' Jobs were created and completed
// and when the DataLoads were claimed and completed, to show where a run's
// time went after the Datasets were bound.
func loadStages(ctx context.Context, c client.Client, ns string, start time.Time) string {
	const n = 14
	rows := map[string]*[n]int{}
	add := func(kind string, t time.Time) {
		if rows[kind] == nil {
			rows[kind] = &[n]int{}
		}
		rows[kind][min(max(int(t.Sub(start).Seconds())/5, 0), n-1)]++
	}
	jobs, loads := &batchv1.JobList{}, &datav1alpha1.DataLoadList{}
	for _, l := range []client.ObjectList{jobs, loads} {
		if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err.Error()
		}
	}
	for _, j := range jobs.Items {
		add("loader-job", j.CreationTimestamp.Time)
		for _, cond := range j.Status.Conditions {
			if cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue {
				add("loader-job-complete", cond.LastTransitionTime.Time)
			}
		}
	}
	for _, dl := range loads.Items {
		for _, cond := range dl.Status.Conditions {
			add("dataload-condition-"+cond.Type, cond.LastTransitionTime.Time)
		}
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		fmt.Fprintf(&b, "%-36s %v\n", k, *rows[k])
	}
	return b.String()
}

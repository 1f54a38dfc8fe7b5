package metrics

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func boundDataset() *datav1alpha1.Dataset {
	return &datav1alpha1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: "mnist", Namespace: "team-a", UID: "ds-1"},
		Status: datav1alpha1.DatasetStatus{
			Phase: datav1alpha1.BoundDatasetPhase, UfsTotal: "4GiB", FileNum: "1024",
			CacheStates: datav1alpha1.CacheStateList{
				datav1alpha1.Cached: "1GiB", datav1alpha1.CacheCapacity: "10GiB", datav1alpha1.CachedPercentage: "25.0%",
				datav1alpha1.CacheHitRatio: "85.0%", datav1alpha1.CacheThroughputRatio: "80.0%",
			},
		},
	}
}

func readyRuntime() *datav1alpha1.JuiceFSRuntime {
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "mnist", Namespace: "team-a", UID: "rt-1"}}
	rt.Status.WorkerPhase, rt.Status.WorkerNumberReady, rt.Status.DesiredWorkerNumberScheduled = datav1alpha1.RuntimePhasePartialReady, 1, 2
	rt.Status.FusePhase, rt.Status.FuseNumberReady, rt.Status.DesiredFuseNumberScheduled = datav1alpha1.RuntimePhaseReady, 3, 3
	rt.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Bound"}}
	return rt
}

var juicefsKind = RuntimeKind{Type: "juicefsruntime", NewList: func() client.ObjectList { return &datav1alpha1.JuiceFSRuntimeList{} }}

// elected is a closed channel: the replica leads.
func elected() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func newRegistry(t *testing.T, c *Collector) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestCollectorExportsTheStatus: a bound Dataset's figures, as its status
// holds them, and its runtime's replicas and failure counts, under Sluice's
// and Fluid's names.
func TestCollectorExportsTheStatus(t *testing.T) {
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(boundDataset(), readyRuntime()).Build()
	failures := &Failures{}
	failures.SetupError(readyRuntime())
	failures.SetupError(readyRuntime())
	reg := newRegistry(t, &Collector{Reader: c, Kinds: []RuntimeKind{juicefsKind}, Elected: elected(), Failures: failures})

	want := `
# HELP dataset_ufs_file_num Total num of files of a specific dataset (Fluid's metric: status.fileNum).
# TYPE dataset_ufs_file_num gauge
dataset_ufs_file_num{dataset="team-a/mnist"} 1024
# HELP dataset_ufs_total_size Total size of files in dataset (Fluid's metric: status.ufsTotal in bytes).
# TYPE dataset_ufs_total_size gauge
dataset_ufs_total_size{dataset="team-a/mnist"} 4.294967296e+09
# HELP runtime_setup_error_total Total num of errors during runtime setup (Fluid's metric: failed reconciles before the Dataset was bound to the runtime).
# TYPE runtime_setup_error_total counter
runtime_setup_error_total{runtime="team-a/mnist",runtime_type="juicefsruntime"} 2
# HELP runtime_sync_healthcheck_error_total Total num of errors during runtime health check (Fluid's metric: reconciles of a bound runtime that found no ready master or worker).
# TYPE runtime_sync_healthcheck_error_total counter
runtime_sync_healthcheck_error_total{runtime="team-a/mnist",runtime_type="juicefsruntime"} 0
# HELP sluice_dataset_cache_capacity_bytes The Dataset's cache size (status.cacheStates.cacheCapacity, the CACHE CAPACITY column).
# TYPE sluice_dataset_cache_capacity_bytes gauge
sluice_dataset_cache_capacity_bytes{dataset="mnist",namespace="team-a"} 1.073741824e+10
# HELP sluice_dataset_cache_hit_ratio Share of reads served from the cache, 0 to 1 (status.cacheStates.cacheHitRatio).
# TYPE sluice_dataset_cache_hit_ratio gauge
sluice_dataset_cache_hit_ratio{dataset="mnist",namespace="team-a"} 0.85
# HELP sluice_dataset_cache_throughput_ratio Share of bytes read from the cache, 0 to 1 (status.cacheStates.cacheThroughputRatio).
# TYPE sluice_dataset_cache_throughput_ratio gauge
sluice_dataset_cache_throughput_ratio{dataset="mnist",namespace="team-a"} 0.8
# HELP sluice_dataset_cached_bytes Data of the Dataset in its cache (status.cacheStates.cached, the CACHED column).
# TYPE sluice_dataset_cached_bytes gauge
sluice_dataset_cached_bytes{dataset="mnist",namespace="team-a"} 1.073741824e+09
# HELP sluice_dataset_cached_ratio Share of the Dataset that is cached, 0 to 1 (status.cacheStates.cachedPercentage, the CACHED PERCENTAGE column).
# TYPE sluice_dataset_cached_ratio gauge
sluice_dataset_cached_ratio{dataset="mnist",namespace="team-a"} 0.25
# HELP sluice_dataset_phase 1 for the Dataset's status.phase, 0 for each other phase (none is 1 before the controller has seen the Dataset).
# TYPE sluice_dataset_phase gauge
sluice_dataset_phase{dataset="mnist",namespace="team-a",phase="Bound"} 1
sluice_dataset_phase{dataset="mnist",namespace="team-a",phase="DataMigrating"} 0
sluice_dataset_phase{dataset="mnist",namespace="team-a",phase="Failed"} 0
sluice_dataset_phase{dataset="mnist",namespace="team-a",phase="NotBound"} 0
sluice_dataset_phase{dataset="mnist",namespace="team-a",phase="Pending"} 0
sluice_dataset_phase{dataset="mnist",namespace="team-a",phase="Updating"} 0
# HELP sluice_dataset_ufs_files The number of files of the Dataset (status.fileNum), when known.
# TYPE sluice_dataset_ufs_files gauge
sluice_dataset_ufs_files{dataset="mnist",namespace="team-a"} 1024
# HELP sluice_dataset_ufs_total_bytes The Dataset's size in its under storage (status.ufsTotal), when known.
# TYPE sluice_dataset_ufs_total_bytes gauge
sluice_dataset_ufs_total_bytes{dataset="mnist",namespace="team-a"} 4.294967296e+09
# HELP sluice_runtime_desired_replicas Desired replicas of a component (master, worker, fuse) of the runtime, from its status.
# TYPE sluice_runtime_desired_replicas gauge
sluice_runtime_desired_replicas{component="fuse",namespace="team-a",runtime="mnist",runtime_type="juicefsruntime"} 3
sluice_runtime_desired_replicas{component="worker",namespace="team-a",runtime="mnist",runtime_type="juicefsruntime"} 2
# HELP sluice_runtime_ready 1 while the runtime's Ready condition is True, else 0.
# TYPE sluice_runtime_ready gauge
sluice_runtime_ready{namespace="team-a",runtime="mnist",runtime_type="juicefsruntime"} 1
# HELP sluice_runtime_ready_replicas Ready replicas of a component (master, worker, fuse) of the runtime, from its status.
# TYPE sluice_runtime_ready_replicas gauge
sluice_runtime_ready_replicas{component="fuse",namespace="team-a",runtime="mnist",runtime_type="juicefsruntime"} 3
sluice_runtime_ready_replicas{component="worker",namespace="team-a",runtime="mnist",runtime_type="juicefsruntime"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	// The status holds no local or remote ratios, nor masters: no series.
	for _, name := range []string{"sluice_dataset_local_hit_ratio", "sluice_dataset_remote_throughput_ratio"} {
		if n, err := testutil.GatherAndCount(reg, name); err != nil || n != 0 {
			t.Errorf("%s: %d series, %v", name, n, err)
		}
	}
}

// TestCollectorForgetsDeletedObjects: the series of a deleted Dataset and
// runtime are gone at the next scrape, and so are the runtime's failure
// counts (a runtime created again under the name starts from zero).
func TestCollectorForgetsDeletedObjects(t *testing.T) {
	ctx := context.Background()
	ds, rt := boundDataset(), readyRuntime()
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ds, rt).Build()
	failures := &Failures{}
	failures.HealthCheckError(rt)
	reg := newRegistry(t, &Collector{Reader: c, Kinds: []RuntimeKind{juicefsKind}, Elected: elected(), Failures: failures})
	if n, err := testutil.GatherAndCount(reg); err != nil || n == 0 {
		t.Fatalf("before deletion: %d series, %v", n, err)
	}
	if err := c.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Errorf("after deletion: %d series, want none (%v)", n, err)
	}
	if got := failures.counts(rt.UID); got != (failureCounts{}) {
		t.Errorf("the deleted runtime's counts are kept: %+v", got)
	}
}

// TestCollectorExportsNothingUntilElected: a replica on standby exports no
// Dataset or runtime series (the leader does).
func TestCollectorExportsNothingUntilElected(t *testing.T) {
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(boundDataset(), readyRuntime()).Build()
	reg := newRegistry(t, &Collector{Reader: c, Kinds: []RuntimeKind{juicefsKind}, Elected: make(chan struct{})})
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 0 {
		t.Errorf("standby replica: %d series, %v", n, err)
	}
}

// TestCollectorSkipsUnreadableFigures: a new Dataset has every phase at 0
// and no figures; a figure the status holds in a form that is not a
// number has no series rather than a wrong one.
func TestCollectorSkipsUnreadableFigures(t *testing.T) {
	fresh := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "new", Namespace: "n"}}
	odd := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "odd", Namespace: "n"}, Status: datav1alpha1.DatasetStatus{
		UfsTotal: "unknown", FileNum: "-", CacheStates: datav1alpha1.CacheStateList{datav1alpha1.Cached: "lots", datav1alpha1.CacheHitRatio: "high"}}}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(fresh, odd).Build()
	reg := newRegistry(t, &Collector{Reader: c, Elected: elected()})
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 1 || fams[0].GetName() != "sluice_dataset_phase" || len(fams[0].GetMetric()) != 2*len(datasetPhases) {
		t.Fatalf("families: %v", fams)
	}
	for _, m := range fams[0].GetMetric() {
		if m.GetGauge().GetValue() != 0 {
			t.Errorf("a phase is 1 for a Dataset without phase: %v", m)
		}
	}
}

package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/tests/support/monitoring"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// scrapeController reads the controller's metrics endpoint.
func scrapeController(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequestWithContext(testenv.Context(t), http.MethodGet, controllerMetrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scraping the controller: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping the controller: %s", resp.Status)
	}
	fams, err := engines.ParseFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the controller's metrics page: %v", err)
	}
	return fams
}

// sample is the value of the family's series with exactly these labels,
// and whether it has one.
func sample(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	for _, m := range fams[name].GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			match = match && labels[l.GetName()] == l.GetValue()
		}
		if match {
			return engines.SampleValue(m), true
		}
	}
	return 0, false
}

// datasetTable is `kubectl get datasets` of a namespace as the API server
// renders it: the printer columns' names and each row's cells.
func datasetTable(t *testing.T, ns string) (columns []string, rows map[string][]any) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/apis/data.fluid.io/v1alpha1/namespaces", ns, "datasets").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(testenv.Context(t))
	if err != nil {
		t.Fatal(err)
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(raw, table); err != nil {
		t.Fatal(err)
	}
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	rows = map[string][]any{}
	for _, r := range table.Rows {
		rows[r.Cells[0].(string)] = r.Cells
	}
	return columns, rows
}

// TestMetricsShowABoundDataset: scraped from the controller's endpoint, a
// bound Dataset whose FUSE pod serves a metrics page has the figures of
// its status, the same numbers `kubectl get datasets` shows, under Sluice's
// and Fluid's names; its runtime has its replicas and zero errors; every
// query of the dashboard's controller rows names a metric the endpoint
// serves; and once the Dataset and runtime are deleted their series are
// gone.
func TestMetricsShowABoundDataset(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := types.NamespacedName{Namespace: ns, Name: "mnist"}
	ds := testobj.Dataset("mnist", ns, testobj.WithMounts("juicefs:///mnist"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	setDatasetStatus(t, key, func(s *datav1alpha1.DatasetStatus) { s.UfsTotal, s.FileNum = "4GiB", "1024" })
	rt := testobj.JuiceFSRuntime("mnist", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	src, _ := juicefs.Engine{}.CacheMetrics(rt)
	metricsPod(t, ns, "mnist-fuse-a", src.Selector, servePage(t, "/metrics", []byte(juicefsMetrics(1<<30, 85, 15))))
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "mnist-worker"}, sts) == nil
	})
	markReady(t, sts)
	eventually(t, 20*time.Second, "the Dataset reports its cache states", func() bool {
		return env.Client.Get(ctx, key, ds) == nil && ds.Status.CacheStates[datav1alpha1.CachedPercentage] == "25.0%"
	})

	dsLabels := map[string]string{"namespace": ns, "dataset": "mnist"}
	rtLabels := map[string]string{"namespace": ns, "runtime": "mnist", "runtime_type": "juicefsruntime"}
	with := func(base map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for bk, bv := range base {
			out[bk] = bv
		}
		return out
	}
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"sluice_dataset_cached_bytes", dsLabels, 1 << 30},
		{"sluice_dataset_cache_capacity_bytes", dsLabels, 10 << 30},
		{"sluice_dataset_cached_ratio", dsLabels, 0.25},
		{"sluice_dataset_cache_hit_ratio", dsLabels, 0.85},
		{"sluice_dataset_cache_throughput_ratio", dsLabels, 0.85},
		{"sluice_dataset_ufs_total_bytes", dsLabels, 4 << 30},
		{"sluice_dataset_ufs_files", dsLabels, 1024},
		{"sluice_dataset_phase", with(dsLabels, "phase", "Bound"), 1},
		{"sluice_dataset_phase", with(dsLabels, "phase", "NotBound"), 0},
		{"dataset_ufs_total_size", map[string]string{"dataset": ns + "/mnist"}, 4 << 30},
		{"dataset_ufs_file_num", map[string]string{"dataset": ns + "/mnist"}, 1024},
		{"sluice_runtime_ready", rtLabels, 1},
		{"sluice_runtime_ready_replicas", with(rtLabels, "component", "worker"), 1},
		{"sluice_runtime_desired_replicas", with(rtLabels, "component", "worker"), 1},
		{"runtime_setup_error_total", map[string]string{"runtime_type": "juicefsruntime", "runtime": ns + "/mnist"}, 0},
		{"runtime_sync_healthcheck_error_total", map[string]string{"runtime_type": "juicefsruntime", "runtime": ns + "/mnist"}, 0},
	}
	var fams map[string]*dto.MetricFamily
	eventually(t, 20*time.Second, "the controller's endpoint shows the Dataset's figures", func() bool {
		fams = scrapeController(t)
		for _, w := range want {
			if v, ok := sample(fams, w.name, w.labels); !ok || v != w.value {
				return false
			}
		}
		return true
	})

	t.Run("the same numbers as kubectl get datasets", func(t *testing.T) {
		columns, rows := datasetTable(t, ns)
		row := rows["mnist"]
		for column, metric := range map[string]string{
			"Cached": "sluice_dataset_cached_bytes", "Cache Capacity": "sluice_dataset_cache_capacity_bytes",
			"Cached Percentage": "sluice_dataset_cached_ratio", "Ufs Total Size": "sluice_dataset_ufs_total_bytes",
			"CACHE HIT RATIO": "sluice_dataset_cache_hit_ratio", "TOTAL FILES": "sluice_dataset_ufs_files",
		} {
			i := slices.Index(columns, column)
			if i < 0 || row == nil {
				t.Fatalf("no column %q in %v (row %v)", column, columns, row)
			}
			cell := fmt.Sprint(row[i])
			shown, ok := engines.ParseBytes(cell)
			if p, isPercent := engines.ParsePercent(cell); isPercent {
				shown, ok = p, true
			} else if n, isCount := engines.ParseCount(cell); isCount {
				shown, ok = n, true
			}
			got, _ := sample(fams, metric, dsLabels)
			if !ok || shown != got {
				t.Errorf("column %s shows %q; %s is %v", column, cell, metric, got)
			}
		}
		if phase := row[slices.Index(columns, "Phase")]; phase != "Bound" {
			t.Errorf("Phase column %v", phase)
		}
	})

	t.Run("the dashboard's controller panels name exported metrics", func(t *testing.T) {
		queries, err := monitoring.DashboardQueries()
		if err != nil {
			t.Fatal(err)
		}
		exported := monitoring.ExportedNames(mapValues(fams))
		for _, q := range queries {
			if q.Row == monitoring.WebhookRow {
				continue // tests/webhook checks them against the webhook's
			}
			names, err := monitoring.MetricNames(q.Expr)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if !exported[n] {
					t.Errorf("%s / %s: the controller exports no %s", q.Row, q.Panel, n)
				}
			}
		}
		rules, err := monitoring.AdapterRules()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			q, err := r.Query("sluice_dataset_cached_bytes", dsLabels)
			if err != nil {
				t.Fatal(err)
			}
			names, err := monitoring.MetricNames(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				if !exported[n] {
					t.Errorf("adapter rule %s: the controller exports no %s", r.Name.As, n)
				}
			}
		}
	})

	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the Dataset's and runtime's series are gone", func() bool {
		fams := scrapeController(t)
		for _, w := range want {
			if _, ok := sample(fams, w.name, w.labels); ok {
				return false
			}
		}
		return true
	})
}

func mapValues(fams map[string]*dto.MetricFamily) []*dto.MetricFamily {
	out := make([]*dto.MetricFamily, 0, len(fams))
	for _, f := range fams {
		out = append(out, f)
	}
	return out
}

// TestMetricsCountSetupAndHealthCheckErrors: Fluid's error counters count
// the reconciles of a runtime whose spec the engine refuses (setup), and of
// a bound runtime that has lost its last ready worker (health check).
func TestMetricsCountSetupAndHealthCheckErrors(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	counter := func(name, runtime string) float64 {
		v, _ := sample(scrapeController(t), name, map[string]string{"runtime_type": "juicefsruntime", "runtime": ns + "/" + runtime})
		return v
	}

	// Two mounts: the JuiceFS engine refuses the spec (InvalidSpec).
	bad := testobj.Dataset("twice", ns, testobj.WithMounts("juicefs:///a", "juicefs:///b"))
	if err := env.Client.Create(ctx, bad); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.JuiceFSRuntime("twice", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "a setup error is counted", func() bool {
		return counter("runtime_setup_error_total", "twice") >= 1
	})

	// A bound runtime whose only worker stops being ready.
	ds := testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, testobj.JuiceFSRuntime("logs", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	stsKey := types.NamespacedName{Namespace: ns, Name: "logs-worker"}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, stsKey, sts) == nil })
	markReady(t, sts)
	eventually(t, 20*time.Second, "the Dataset is bound", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "logs"}, ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase
	})
	if n := counter("runtime_sync_healthcheck_error_total", "logs"); n != 0 || counter("runtime_setup_error_total", "logs") != 0 {
		t.Fatalf("a healthy runtime has errors counted: health check %v", n)
	}
	if err := env.Client.Get(ctx, stsKey, sts); err != nil {
		t.Fatal(err)
	}
	sts.Status.ReadyReplicas, sts.Status.AvailableReplicas = 0, 0
	if err := env.Client.Status().Update(context.Background(), sts); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "a health-check error is counted", func() bool {
		return counter("runtime_sync_healthcheck_error_total", "logs") >= 1
	})
	if n := counter("runtime_setup_error_total", "logs"); n != 0 {
		t.Errorf("the bound runtime's health check counted as %v setup errors", n)
	}
}

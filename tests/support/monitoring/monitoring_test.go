package monitoring

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestDashboardQueriesParse: the dashboard is a Grafana dashboard's JSON,
// every query is PromQL naming at least one metric, and every panel is in
// one of the rows whose metrics tests/controller (the controller's) and
// tests/webhook (WebhookRow) check against what those export.
func TestDashboardQueriesParse(t *testing.T) {
	queries, err := DashboardQueries()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	for _, q := range queries {
		rows[q.Row]++
		if _, err := MetricNames(q.Expr); err != nil {
			t.Errorf("%s / %s: %v", q.Row, q.Panel, err)
		}
	}
	for row := range rows {
		if !slices.Contains([]string{"Datasets", "Runtimes", "Controller", "Data operations", "Components", WebhookRow, "templating"}, row) {
			t.Errorf("row %q: no test checks its metric names against an exporter", row)
		}
	}
	if rows["Datasets"] == 0 || rows["Data operations"] == 0 || rows["Components"] == 0 || rows[WebhookRow] == 0 || rows["templating"] == 0 {
		t.Errorf("queries by row: %v", rows)
	}
}

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sluice_dataset_cached_bytes{namespace=~"$namespace"} / sluice_dataset_cache_capacity_bytes`: {"sluice_dataset_cache_capacity_bytes", "sluice_dataset_cached_bytes"},
		`histogram_quantile(0.99, sum by (le) (rate(x_bucket[$__rate_interval])))`:                   {"x_bucket"},
		`label_values(sluice_dataset_phase{namespace=~"$namespace"}, dataset)`:                       {"sluice_dataset_phase"},
		`{__name__="up"}`: {"up"},
	} {
		got, err := MetricNames(expr)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("MetricNames(%q) = %v, %v; want %v", expr, got, err, want)
		}
	}
	for _, bad := range []string{`sum(`, `{job="x"}`, `1 + 1`} {
		if got, err := MetricNames(bad); err == nil {
			t.Errorf("MetricNames(%q) = %v, want an error", bad, got)
		}
	}
}

// TestAdapterServesTheHPAsMetric: the adapter's rules are PromQL over the
// controller's metrics, map the series to the Dataset by namespace and
// name, and serve the metric the HPA sample asks of the Dataset, whose
// target is a runtime kind with a scale subresource.
func TestAdapterServesTheHPAsMetric(t *testing.T) {
	rules, err := AdapterRules()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]AdapterRule{}
	for _, r := range rules {
		series, err := MetricNames(r.SeriesQuery)
		if err != nil {
			t.Fatalf("seriesQuery: %v", err)
		}
		if !regexp.MustCompile(r.Name.Matches).MatchString(series[0]) {
			t.Errorf("name.matches %q does not match the series %s", r.Name.Matches, series[0])
		}
		q, err := r.Query(series[0], map[string]string{"namespace": "default", "dataset": "spark"})
		if err != nil {
			t.Fatalf("metricsQuery: %v", err)
		}
		if _, err := MetricNames(q); err != nil {
			t.Errorf("metricsQuery: %v", err)
		}
		if o := r.Resources.Overrides["dataset"]; o.Group != "data.fluid.io" || o.Resource != "datasets" {
			t.Errorf("the dataset label maps to %+v, not Datasets", o)
		}
		if r.Resources.Overrides["namespace"].Resource != "namespace" {
			t.Errorf("the namespace label maps to %+v", r.Resources.Overrides["namespace"])
		}
		served[r.Name.As] = r
	}

	raw, err := os.ReadFile(filepath.Join(RepoRoot(), HPAPath))
	if err != nil {
		t.Fatal(err)
	}
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := yaml.UnmarshalStrict(raw, hpa); err != nil {
		t.Fatal(err)
	}
	for _, m := range hpa.Spec.Metrics {
		if m.Object == nil || m.Object.DescribedObject.Kind != "Dataset" || m.Object.DescribedObject.APIVersion != "data.fluid.io/v1alpha1" {
			t.Errorf("metric %+v is not a Dataset's", m)
			continue
		}
		if _, ok := served[m.Object.Metric.Name]; !ok {
			t.Errorf("the HPA reads %s, which no adapter rule serves", m.Object.Metric.Name)
		}
	}
	ref := hpa.Spec.ScaleTargetRef
	crd := &apiextensionsv1.CustomResourceDefinition{}
	raw, err = os.ReadFile(filepath.Join(RepoRoot(), "config", "crd", "bases", "data.fluid.io_"+strings.ToLower(ref.Kind)+"s.yaml"))
	if err != nil {
		t.Fatalf("the HPA's target %s: %v", ref.Kind, err)
	}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if "data.fluid.io/"+v.Name == ref.APIVersion && (v.Subresources == nil || v.Subresources.Scale == nil) {
			t.Errorf("%s %s has no scale subresource for the HPA", ref.APIVersion, ref.Kind)
		}
	}
}

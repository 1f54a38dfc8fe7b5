package chart_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/release"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/tests/support/chartrender"
)

var update = flag.Bool("update", false, "rewrite the golden renders in testdata/golden")

const (
	releaseName = chartrender.ReleaseName
	namespace   = "sluice-system"
)

// kubeVersion is the cluster version renders assume (the simulated
// cluster's).
var kubeVersion = chartrender.KubeVersion

func chartDir() string { return chartrender.Dir() }

func loadChart(t testing.TB) *chart.Chart {
	t.Helper()
	c, err := chartrender.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dryRun renders the chart as `helm install --dry-run` would without a
// cluster: values are checked against values.schema.json first.
func dryRun(c *chart.Chart, vals map[string]any, ns string) (*release.Release, error) {
	return chartrender.DryRun(c, vals, ns)
}

// render returns the chart's objects for vals, failing the test on error.
func render(t testing.TB, vals map[string]any) []*unstructured.Unstructured {
	t.Helper()
	rel, err := dryRun(loadChart(t), vals, namespace)
	if err != nil {
		t.Fatalf("rendering: %v", err)
	}
	return objects(t, rel.Manifest)
}

// objects decodes a manifest stream in Helm's install order.
func objects(t testing.TB, manifest string) []*unstructured.Unstructured {
	t.Helper()
	out, err := chartrender.Objects(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// find returns the one rendered object of kind and name.
func find(t testing.TB, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s rendered; have:\n%s", kind, name, names(objs))
	return nil
}

func names(objs []*unstructured.Unstructured) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "  %s %s/%s\n", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	return b.String()
}

// parseValues reads values written as YAML.
func parseValues(t testing.TB, s string) map[string]any {
	t.Helper()
	out := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("values: %v", err)
	}
	return out
}

package chart_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/tests/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden renders in testdata/golden")

const (
	releaseName = "sluice"
	namespace   = "sluice-system"
)

// kubeVersion is the cluster version renders assume (the simulated
// cluster's).
var kubeVersion = chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}

func chartDir() string { return filepath.Join(testenv.RepoRoot(), "charts", "sluice") }

func loadChart(t testing.TB) *chart.Chart {
	t.Helper()
	c, err := loader.Load(chartDir())
	if err != nil {
		t.Fatalf("loading the chart: %v", err)
	}
	return c
}

// dryRun renders the chart as `helm install --dry-run` would without a
// cluster: values are checked against values.schema.json first.
func dryRun(c *chart.Chart, vals map[string]any, ns string) (*release.Release, error) {
	cfg := &action.Configuration{
		Releases:     storage.Init(driver.NewMemory()),
		KubeClient:   &kubefake.PrintingKubeClient{Out: &bytes.Buffer{}},
		Capabilities: &chartutil.Capabilities{KubeVersion: kubeVersion, APIVersions: chartutil.DefaultVersionSet},
		Log:          func(string, ...any) {},
	}
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = releaseName, ns
	in.DryRun, in.ClientOnly, in.Replace, in.IncludeCRDs = true, true, true, false
	in.KubeVersion = &kubeVersion
	return in.RunWithContext(context.Background(), c, vals)
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
	split := releaseutil.SplitManifests(manifest)
	keys := make([]string, 0, len(split))
	for k := range split {
		keys = append(keys, k)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	var out []*unstructured.Unstructured
	for _, k := range keys {
		doc := strings.TrimSpace(split[k])
		if doc == "" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("decoding %s: %v\n%s", k, err, doc)
		}
		if len(u.Object) == 0 {
			continue
		}
		out = append(out, u)
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

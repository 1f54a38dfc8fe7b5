package chartrender

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

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

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// ReleaseName is the release name renders use.
const ReleaseName = "sluice"

// KubeVersion is the cluster version renders assume (the simulated
// cluster's).
var KubeVersion = chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}

// Dir is the chart's directory.
func Dir() string { return filepath.Join(testenv.RepoRoot(), "charts", "sluice") }

// Load loads the chart from Dir.
func Load() (*chart.Chart, error) {
	c, err := loader.Load(Dir())
	if err != nil {
		return nil, fmt.Errorf("loading the chart: %w", err)
	}
	return c, nil
}

// DryRun renders c as `helm install --dry-run` would without a cluster,
// into namespace ns: values are checked against values.schema.json first.
func DryRun(c *chart.Chart, vals map[string]any, ns string) (*release.Release, error) {
	cfg := &action.Configuration{
		Releases:     storage.Init(driver.NewMemory()),
		KubeClient:   &kubefake.PrintingKubeClient{Out: &bytes.Buffer{}},
		Capabilities: &chartutil.Capabilities{KubeVersion: KubeVersion, APIVersions: chartutil.DefaultVersionSet},
		Log:          func(string, ...any) {},
	}
	in := action.NewInstall(cfg)
	in.ReleaseName, in.Namespace = ReleaseName, ns
	in.DryRun, in.ClientOnly, in.Replace, in.IncludeCRDs = true, true, true, false
	in.KubeVersion = &KubeVersion
	return in.RunWithContext(context.Background(), c, vals)
}

// Objects decodes a manifest stream in Helm's install order.
func Objects(manifest string) ([]*unstructured.Unstructured, error) {
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
			return nil, fmt.Errorf("decoding %s: %w\n%s", k, err, doc)
		}
		if len(u.Object) == 0 {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// Render renders the chart with vals into namespace ns and returns its
// objects.
func Render(vals map[string]any, ns string) ([]*unstructured.Unstructured, error) {
	c, err := Load()
	if err != nil {
		return nil, err
	}
	rel, err := DryRun(c, vals, ns)
	if err != nil {
		return nil, fmt.Errorf("rendering: %w", err)
	}
	return Objects(rel.Manifest)
}

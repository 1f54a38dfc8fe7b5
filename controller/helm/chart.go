package helm

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/releaseutil"
)

// LoadChart loads a chart from its files (rooted at Chart.yaml), e.g. an
// engine's embedded chart.
func LoadChart(fsys fs.FS) (*chart.Chart, error) {
	var files []*loader.BufferedFile
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, &loader.BufferedFile{Name: p, Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("loading chart: %w", err)
	}
	return c, nil
}

// Render renders a chart as `helm template` would, with the Helm SDK, and
// returns the manifests by template file name, the objects of one template
// separated by "---".
func Render(ctx context.Context, c *chart.Chart, values map[string]any, release, namespace string) (map[string]string, error) {
	return RenderFor(ctx, c, values, release, namespace, "")
}

// RenderFor is Render for a cluster of the given Kubernetes version (e.g.
// "v1.37.2", what the API server reports), which the chart's kubeVersion
// constraint and .Capabilities see; "" is Helm's default version.
func RenderFor(ctx context.Context, c *chart.Chart, values map[string]any, release, namespace, kubeVersion string) (map[string]string, error) {
	cl := NewMemoryClient(namespace, nil)
	in := action.NewInstall(cl.cfg)
	in.ReleaseName, in.Namespace, in.DryRun, in.ClientOnly, in.Replace = release, namespace, true, true, true
	if kubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("rendering chart %s: %w", c.Name(), err)
		}
		in.KubeVersion = kv
	}
	rel, err := in.RunWithContext(ctx, c, values)
	if err != nil {
		return nil, fmt.Errorf("rendering chart %s: %w", c.Name(), err)
	}
	out := map[string]string{}
	manifests := releaseutil.SplitManifests(rel.Manifest)
	names := make([]string, 0, len(manifests))
	for name := range manifests {
		names = append(names, name)
	}
	// In the order Helm rendered them, so several objects of one template
	// (a range) keep theirs.
	sort.Sort(releaseutil.BySplitManifestsOrder(names))
	for _, name := range names {
		manifest := manifests[name]
		src := sourceOf(manifest)
		if src == "" {
			src = name
		}
		if out[src] != "" {
			out[src] += "---\n" // another object of the same template
		}
		out[src] += manifest + "\n"
	}
	return out, nil
}

// sourceOf reads the "# Source: <chart>/templates/x.yaml" header Helm writes.
func sourceOf(manifest string) string {
	for _, line := range strings.Split(manifest, "\n") {
		if rest, ok := strings.CutPrefix(line, "# Source: "); ok {
			parts := strings.SplitN(rest, "/", 2)
			return parts[len(parts)-1]
		}
	}
	return ""
}

// SortedKeys returns the keys of rendered manifests in order.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ChartLoader loads a chart once and hands the same chart to every caller
// (installs and upgrades only read it). The zero value is ready to use.
type ChartLoader struct {
	once  sync.Once
	chart *chart.Chart
	err   error
}

// Load returns the chart in fsys, loading it on the first call.
func (l *ChartLoader) Load(fsys fs.FS) (*chart.Chart, error) {
	l.once.Do(func() { l.chart, l.err = LoadChart(fsys) })
	return l.chart, l.err
}

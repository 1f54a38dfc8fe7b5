package enginetest

import (
	"context"
	"io/fs"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
)

// Render renders e's chart with the Helm SDK for the runtime rt serving the
// Dataset, as the release rt.Name in rt.Namespace, and returns the values
// and the manifests by template file ("templates/x.yaml"). The values come
// from e.Values, or, when e is an engines.Resolver, from the Values of the
// engine it resolves reading through r (which only a Resolver needs; nil
// reads an empty cluster).
func Render(t testing.TB, e engines.Engine, r client.Reader, ds *datav1alpha1.Dataset, rt client.Object) (map[string]any, map[string]string) {
	t.Helper()
	var (
		values map[string]any
		err    error
	)
	if res, ok := e.(engines.Resolver); ok {
		if r == nil {
			r = fake.NewClientBuilder().WithScheme(scheme.New()).Build()
		}
		var resolved engines.Engine
		if resolved, err = res.Resolve(context.Background(), r, rt); err == nil {
			values, err = resolved.Values(ds, rt)
		}
	} else {
		values, err = e.Values(ds, rt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return values, RenderValues(t, e, values, rt.GetName(), rt.GetNamespace())
}

// RenderValues renders e's chart with the Helm SDK for the values, as the
// release name in namespace, and returns the manifests by template file.
func RenderValues(t testing.TB, e engines.Engine, values map[string]any, name, namespace string) map[string]string {
	t.Helper()
	return RenderChart(t, e.Chart(), values, name, namespace)
}

// RenderChart renders the chart in fsys with the Helm SDK for the values,
// as the release name in namespace, and returns the manifests by template
// file.
func RenderChart(t testing.TB, fsys fs.FS, values map[string]any, name, namespace string) map[string]string {
	t.Helper()
	c, err := helm.LoadChart(fsys)
	if err != nil {
		t.Fatal(err)
	}
	out, err := helm.Render(context.Background(), c, values, name, namespace)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

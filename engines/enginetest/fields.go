package enginetest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
)

// CRDFile is the generated CRD of a kind's plural resource (e.g.
// alluxioruntimes), relative to an engine package's directory.
func CRDFile(plural string) string {
	return "../../config/crd/bases/data.fluid.io_" + plural + ".yaml"
}

// SpecSchema reads the spec schema of the CRD in file.
func SpecSchema(t testing.TB, file string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		t.Fatalf("%s: want one version with a schema", file)
	}
	spec, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !ok {
		t.Fatalf("%s: the schema has no spec", file)
	}
	return spec
}

// CheckClassified fails unless every field of the spec schema is
// classified by a row of table (a row covers the field and everything
// under it), and every row names a field the schema has. A "[N]" row
// refines another row and covers nothing by itself.
func CheckClassified(t testing.TB, spec apiextensionsv1.JSONSchemaProps, table engines.Fields) {
	t.Helper()
	rows := map[string]bool{}
	for _, f := range table {
		if indexToEach(f.Path) == f.Path {
			rows[f.Path] = true
		}
	}
	known := map[string]bool{}
	var unclassified []string
	var walk func(path string, s apiextensionsv1.JSONSchemaProps)
	walk = func(path string, s apiextensionsv1.JSONSchemaProps) {
		known[path] = true
		if rows[path] {
			return
		}
		props := s.Properties
		if s.Type == "array" && s.Items != nil && s.Items.Schema != nil && len(s.Items.Schema.Properties) > 0 {
			path += "[]"
			known[path] = true
			if rows[path] {
				return
			}
			props = s.Items.Schema.Properties
		}
		if len(props) == 0 {
			unclassified = append(unclassified, path)
			return
		}
		for name, p := range props {
			walk(path+"."+name, p)
		}
	}
	walk("spec", spec)
	slices.Sort(unclassified)
	for _, p := range unclassified {
		t.Errorf("%s is not classified in the engine's field table", p)
	}
	for _, f := range table {
		if !known[indexToEach(f.Path)] {
			t.Errorf("field table row %s names a field the schema does not have", f.Path)
		}
	}
}

// indexToEach turns "[N]" segments into "[]".
func indexToEach(path string) string {
	segs := strings.Split(path, ".")
	for i, s := range segs {
		if j := strings.Index(s, "["); j >= 0 {
			segs[i] = s[:j] + "[]"
		}
	}
	return strings.Join(segs, ".")
}

// RenderCase is the baseline of the render test: the engine, the reader a
// Resolver reads through, and the Dataset and runtime it renders.
type RenderCase struct {
	Engine  engines.Engine
	Reader  client.Reader
	Dataset *datav1alpha1.Dataset
	Runtime client.Object
	// Set changes the object a row's field lives in (the runtime by
	// default; Thin's profile rows set the profile) and returns how to
	// render with it; nil sets the runtime.
	Set func(path string, value any) (engines.Engine, client.Reader, client.Object, error)
	// Alternate gives, for some rows, another baseline to set the field
	// in, when the main one cannot take it (Jindo's spec.secret on a
	// Dataset without encryptOptions).
	Alternate map[string]*RenderCase
}

// CheckHonouredRendered proves that no honoured field is ignored: for each
// honoured row of table that acts through the chart, setting the field to
// its sample value changes the rendered chart compared with the baseline.
// samples give the value (as JSON decodes it) of each row a default cannot
// make: a string, number, boolean, map of strings or list of strings gets
// one from the schema. outside must list exactly the honoured rows that act
// outside the chart (Field.ActsOutsideChart), so that the exemptions stay a
// short, explicit list.
func CheckHonouredRendered(t *testing.T, c RenderCase, spec apiextensionsv1.JSONSchemaProps, table engines.Fields, samples map[string]any, outside []string) {
	t.Helper()
	base, err := renderFor(c.Engine, c.Reader, c.Dataset, c.Runtime)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	var exempt []string
	for _, f := range table {
		if f.Support != engines.Honoured {
			continue
		}
		if f.ActsOutsideChart != "" {
			exempt = append(exempt, f.Path)
			continue
		}
		c, base := c.baseline(t, f.Path, base)
		t.Run(f.Path, func(t *testing.T) {
			out, v := c.renderSample(t, spec, samples, f.Path, "an honoured field")
			if cmp.Equal(base, out) {
				t.Errorf("setting %s to %v changes nothing the chart renders: it is ignored, or acts outside the chart (say where in ActsOutsideChart)", f.Path, v)
			}
		})
	}
	slices.Sort(exempt)
	want := slices.Sorted(slices.Values(outside))
	if !slices.Equal(exempt, want) {
		t.Errorf("honoured fields acting outside the chart: %v, want exactly %v", exempt, want)
	}
}

// baseline is the case a row's field is set in, and its rendering: c and
// base, or the row's alternate (c.Alternate) rendered afresh.
func (c RenderCase) baseline(t *testing.T, path string, base map[string]string) (RenderCase, map[string]string) {
	t.Helper()
	alt, ok := c.Alternate[path]
	if !ok {
		return c, base
	}
	out, err := renderFor(alt.Engine, alt.Reader, alt.Dataset, alt.Runtime)
	if err != nil {
		t.Fatalf("the alternate baseline for %s: %v", path, err)
	}
	return *alt, out
}

// renderSample renders c with the field at path set to its sample
// (samples, else one the schema makes) and returns the rendering and the
// sample; what names the field in the failure when the engine refuses it.
func (c RenderCase) renderSample(t *testing.T, spec apiextensionsv1.JSONSchemaProps, samples map[string]any, path, what string) (map[string]string, any) {
	t.Helper()
	v, ok := samples[path]
	if !ok {
		if v, ok = defaultSample(spec, path); !ok {
			t.Fatalf("no sample value for %s; add one to the test's samples", path)
		}
	}
	e, r := c.Engine, c.Reader
	var obj client.Object
	var err error
	if c.Set != nil {
		e, r, obj, err = c.Set(path, v)
	} else {
		obj, err = SetField(c.Runtime, path, v)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := renderFor(e, r, c.Dataset, obj)
	if err != nil {
		t.Fatalf("%s's sample %v is refused: %v", what, v, err)
	}
	return out, v
}

// RenderErr renders like Render but returns the engine's error (from
// Resolve or Values, or Helm's) instead of stopping the test.
func RenderErr(e engines.Engine, r client.Reader, ds *datav1alpha1.Dataset, rt client.Object) (map[string]string, error) {
	return renderFor(e, r, ds, rt)
}

func renderFor(e engines.Engine, r client.Reader, ds *datav1alpha1.Dataset, rt client.Object) (map[string]string, error) {
	if res, ok := e.(engines.Resolver); ok {
		resolved, err := res.Resolve(context.Background(), r, rt)
		if err != nil {
			return nil, err
		}
		e = resolved
	}
	values, err := e.Values(ds, rt)
	if err != nil {
		return nil, err
	}
	ch, err := helm.LoadChart(e.Chart())
	if err != nil {
		return nil, err
	}
	return helm.Render(context.Background(), ch, values, rt.GetName(), rt.GetNamespace())
}

// SetField returns a copy of obj with the field at path (a field table
// path; "[]" is the last element, which must exist) set to v.
func SetField(obj client.Object, path string, v any) (client.Object, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	segs := strings.Split(path, ".")
	cur := u
	for i, s := range segs {
		name, list := strings.CutSuffix(s, "[]")
		if i == len(segs)-1 {
			if items, _ := cur[name].([]any); list && len(items) > 0 {
				items[len(items)-1] = v
				break
			}
			cur[name] = v
			break
		}
		next, ok := cur[name]
		if !ok {
			next = map[string]any{}
			cur[name] = next
		}
		if list {
			items, _ := next.([]any)
			if len(items) == 0 {
				return nil, fmt.Errorf("%s: the baseline has no element of %s to set a field in", path, name)
			}
			next = items[len(items)-1]
		}
		m, ok := next.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s is not an object", path, name)
		}
		cur = m
	}
	out := obj.DeepCopyObject().(client.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u, out, true); err != nil {
		return nil, fmt.Errorf("%s = %v: %w", path, v, err)
	}
	return out, nil
}

// defaultSample makes a sample value from the schema of path: a string
// (an enum's last value), 3, true, {"sample.key": "sample-value"} or
// ["sample"].
func defaultSample(spec apiextensionsv1.JSONSchemaProps, path string) (any, bool) {
	s := spec
	for _, seg := range strings.Split(path, ".")[1:] {
		name, list := strings.CutSuffix(seg, "[]")
		p, ok := s.Properties[name]
		if !ok {
			return nil, false
		}
		s = p
		if list {
			if s.Items == nil || s.Items.Schema == nil {
				return nil, false
			}
			s = *s.Items.Schema
		}
	}
	switch {
	case len(s.Enum) > 0:
		var v any
		if err := yaml.Unmarshal(s.Enum[len(s.Enum)-1].Raw, &v); err != nil {
			return nil, false
		}
		return v, true
	case s.Type == "string":
		return "sample", true
	case s.Type == "integer":
		return int64(3), true
	case s.Type == "boolean":
		return true, true
	case s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties != nil &&
		s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Type == "string":
		return map[string]any{"sample.key": "sample-value"}, true
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil && s.Items.Schema.Type == "string":
		return []any{"sample"}, true
	}
	return nil, false
}

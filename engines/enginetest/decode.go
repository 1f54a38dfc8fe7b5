package enginetest

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// Decode decodes the rendered template (its key in out, e.g.
// "templates/worker-statefulset.yaml") strictly into a new T: a field T
// does not know fails the test, as does a template the chart did not render
// or one that renders more than one object.
func Decode[T any](t testing.TB, out map[string]string, template string) *T {
	t.Helper()
	if _, ok := out[template]; !ok {
		t.Fatalf("the chart did not render %s", template)
	}
	return DecodeOptional[T](t, out, template)
}

// DecodeOptional is Decode for a template the chart may leave out: nil
// when it did not render it.
func DecodeOptional[T any](t testing.TB, out map[string]string, template string) *T {
	t.Helper()
	m, ok := out[template]
	if !ok {
		return nil
	}
	if n := strings.Count("\n"+m, "\n---\n") + 1; n > 1 {
		t.Fatalf("%s renders %d objects, want one\n%s", template, n, m)
	}
	obj := new(T)
	if err := yaml.UnmarshalStrict([]byte(m), obj); err != nil {
		t.Fatalf("%s does not decode strictly into %T: %v\n%s", template, obj, err, m)
	}
	return obj
}

package registry_test

import (
	"os"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/registry"
)

// TestCRDDefaultsAreNotFindings: what the API server defaults in a
// minimal object of each kind (every spec object holding a default
// present, so that nested defaults apply) is neither refused nor warned,
// or every stored object would be.
func TestCRDDefaultsAreNotFindings(t *testing.T) {
	for _, tb := range registry.All {
		t.Run(tb.Kind, func(t *testing.T) {
			raw, err := os.ReadFile("../../config/crd/bases/data.fluid.io_" + strings.ToLower(tb.Kind) + "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(raw, &crd); err != nil {
				t.Fatal(err)
			}
			var internal apiextensions.JSONSchemaProps
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
				t.Fatal(err)
			}
			s, err := structuralschema.NewStructural(&internal)
			if err != nil {
				t.Fatal(err)
			}
			spec := map[string]any{}
			for name, p := range s.Properties["spec"].Properties {
				if p.Type == "object" && hasDefault(&p) {
					spec[name] = map[string]any{}
				}
			}
			obj := map[string]any{"apiVersion": "data.fluid.io/v1alpha1", "kind": tb.Kind, "metadata": map[string]any{"name": "x"}, "spec": spec}
			defaulting.Default(obj, s)
			typed, err := scheme.New().New(datav1alpha1.GroupVersion.WithKind(tb.Kind))
			if err != nil {
				t.Fatal(err)
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
				t.Fatal(err)
			}
			if found := tb.Fields.Check(typed); len(found) > 0 {
				t.Errorf("the CRD's defaults are findings: %v", found)
			}
		})
	}
}

// hasDefault says whether s or a property under it has a default.
func hasDefault(s *structuralschema.Structural) bool {
	if s.Default.Object != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefault(&p) {
			return true
		}
	}
	return false
}

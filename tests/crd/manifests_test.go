package crd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestFluidManifestsApplyUnchanged applies every manifest under
// testdata/fluid with server-side apply, as `kubectl apply --server-side`
// would, and checks that the stored object holds every field as written.
// Each manifest is first checked against Fluid's own published schema, so the
// test proves that manifests Fluid accepts are accepted by Sluice unchanged.
func TestFluidManifestsApplyUnchanged(t *testing.T) {
	files, err := filepath.Glob("testdata/fluid/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	fluid := fluidValidators(t)
	kinds := map[string]bool{}
	for _, f := range files {
		for i, doc := range readDocs(t, f) {
			kinds[doc.GetKind()] = true
			t.Run(fmt.Sprintf("%s#%d/%s", filepath.Base(f), i, doc.GetName()), func(t *testing.T) {
				if fluid != nil {
					fluid.check(t, doc)
				}
				applyAndCompare(t, doc)
			})
		}
	}
	for _, kind := range allKinds {
		if !kinds[kind] {
			t.Errorf("no Fluid-style manifest for %s in testdata/fluid", kind)
		}
	}
}

var allKinds = []string{
	"Dataset", "AlluxioRuntime", "JuiceFSRuntime", "JindoRuntime", "ThinRuntime", "ThinRuntimeProfile",
	"DataLoad", "DataMigrate", "DataBackup", "DataProcess",
}

func applyAndCompare(t *testing.T, doc *unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	want := doc.DeepCopy()
	obj := doc.DeepCopy()
	if clusterScoped(obj.GetKind()) {
		obj.SetName(obj.GetName() + "-" + utilrand.String(6))
	} else {
		obj.SetNamespace(env.Namespace(t))
	}
	if err := env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("fluid-user"), client.ForceOwnership); err != nil {
		t.Fatalf("server-side apply rejected the manifest: %v", err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), obj) })

	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(obj.GroupVersionKind())
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatal(err)
	}
	for _, diff := range missing("spec", normalise(t, want.Object["spec"]), normalise(t, got.Object["spec"])) {
		t.Errorf("stored object differs from the manifest: %s", diff)
	}
}

// missing lists the places where want has a value that got lacks or
// differs from; got may hold more (defaults).
func missing(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, stored %v", path, got)}
		}
		var out []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: pruned (was %v)", path, k, wv))
				continue
			}
			out = append(out, missing(path+"."+k, wv, gv)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: want %v, stored %v", path, want, got)}
		}
		var out []string
		for i := range w {
			out = append(out, missing(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	default:
		if fmt.Sprint(want) != fmt.Sprint(got) {
			return []string{fmt.Sprintf("%s: want %v, stored %v", path, want, got)}
		}
		return nil
	}
}

// normalise round-trips v through JSON so that numbers compare alike.
func normalise(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func clusterScoped(kind string) bool {
	return kind == "ThinRuntimeProfile" || kind == "CacheRuntimeClass"
}

func readDocs(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var docs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return docs
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(u.Object) > 0 {
			docs = append(docs, u)
		}
	}
}

// fluidSchemas validates and prunes objects with Fluid's published schemas,
// the way Fluid's API server would.
type fluidSchemas map[string]fluidSchema

type fluidSchema struct {
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
}

// fluidValidators returns nil, and logs why, when Fluid's reference CRDs are
// not beside the repository (they always are in CI). It holds the refused
// kinds' schemas too (refusedCRDDir).
func fluidValidators(t *testing.T) fluidSchemas {
	t.Helper()
	dir, err := lookupFluidCRDDir()
	if err != nil {
		t.Logf("not checking the manifests against Fluid's schemas: %v", err)
		return nil
	}
	return schemasOf(t, fluidCRDFiles(t, dir))
}

// schemasOf reads the schemas of Fluid's CRD files.
func schemasOf(t *testing.T, files []string) fluidSchemas {
	t.Helper()
	out := fluidSchemas{}
	for _, f := range files {
		crd := readCRD(t, f)
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		v, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(internal)
		if err != nil {
			t.Fatal(err)
		}
		out[crd.Spec.Names.Kind] = fluidSchema{validator: v, structural: s}
	}
	return out
}

// check fails the test if Fluid's schema would reject or prune any field of doc.
func (fs fluidSchemas) check(t *testing.T, doc *unstructured.Unstructured) {
	t.Helper()
	s, ok := fs[doc.GetKind()]
	if !ok {
		t.Fatalf("no Fluid schema for %s", doc.GetKind())
	}
	obj := runtime.DeepCopyJSON(doc.Object)
	if errs := apiservervalidation.ValidateCustomResource(field.NewPath(""), obj, s.validator); len(errs) > 0 {
		t.Fatalf("test manifest is not valid for Fluid: %v", errs.ToAggregate())
	}
	before, _ := json.Marshal(obj)
	pruned := pruning.PruneWithOptions(obj, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	after, _ := json.Marshal(obj)
	if len(pruned) > 0 || !bytes.Equal(before, after) {
		t.Fatalf("test manifest has fields Fluid would prune: %v", pruned)
	}
}

package scheme

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"
)

// FuzzDecodeObjects feeds arbitrary streams to DecodeObjects, the decoder
// of `sluice policy eval --objects`, the fixture cases and the samples.
// It never panics; it fails naming the document, or every object it
// returns, written as YAML and decoded again, is the same object: nothing
// it accepted was dropped or changed on the way.
func FuzzDecodeObjects(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{"../../config/samples/*.yaml", "../../config/samples/*/*.yaml", "../../policies/testdata/*/*/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, files...)
	}
	if len(seeds) == 0 {
		f.Fatal("no seed files: the samples and fixture cases moved")
	}
	for _, file := range seeds {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("---\n# only a comment\n---\n"))
	f.Add([]byte(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}`))
	f.Add([]byte("apiVersion: data.fluid.io/v1alpha1\nkind: Dataset\nmetadata: {name: d}\nspec: {mounts: [{mountPoint: 1}]}\n"))

	s := New()
	f.Fuzz(func(t *testing.T, stream []byte) {
		objs, err := DecodeObjects[Object](bytes.NewReader(stream), s)
		if err != nil {
			if objs != nil {
				t.Fatalf("an error (%v) with %d objects", err, len(objs))
			}
			if !strings.HasPrefix(err.Error(), "document ") {
				t.Fatalf("the error does not name the document: %v", err)
			}
			return
		}
		for i, obj := range objs {
			kinds, _, err := s.ObjectKinds(obj)
			if err != nil {
				t.Fatalf("object %d (%T) is not in the scheme: %v", i, obj, err)
			}
			obj.GetObjectKind().SetGroupVersionKind(kinds[0])
			doc, err := yaml.Marshal(obj)
			if err != nil {
				t.Fatalf("object %d does not marshal: %v", i, err)
			}
			again, err := DecodeObjects[Object](bytes.NewReader(doc), s)
			if err != nil || len(again) != 1 {
				t.Fatalf("object %d of %q written as\n%s\ndoes not decode to one object: %d, %v", i, stream, doc, len(again), err)
			}
			again[0].GetObjectKind().SetGroupVersionKind(kinds[0])
			if !equality.Semantic.DeepEqual(again[0], obj) {
				t.Fatalf("object %d of %q written as\n%s\ndecodes to another object:\n%#v\nwas\n%#v", i, stream, doc, again[0], obj)
			}
		}
	})
}

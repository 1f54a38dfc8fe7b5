package snapshot

import (
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
)

// DecodeObjects reads a multi-document YAML or JSON stream of Kubernetes and
// Sluice objects. Unknown kinds and unknown fields are errors.
func DecodeObjects(r io.Reader, s *runtime.Scheme) ([]client.Object, error) {
	decoder := sluicescheme.Codecs(s).UniversalDeserializer()
	docs := utilyaml.NewYAMLReader(newBufReader(r))
	var out []client.Object
	for i := 1; ; i++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if isBlank(doc) {
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		co, ok := obj.(client.Object)
		if !ok {
			return nil, fmt.Errorf("document %d: %T is not an object with metadata", i, obj)
		}
		out = append(out, co)
	}
}

// StaticReader serves the given objects, as the webhook's caches would. It
// backs `sluice policy eval` and the fixture cases; the webhook itself reads
// from informer caches.
func StaticReader(s *runtime.Scheme, objs []client.Object) client.Reader {
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

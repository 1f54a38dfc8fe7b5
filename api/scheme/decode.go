package scheme

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Object is what DecodeObjects returns objects as: a kind with metadata.
// controller-runtime's client.Object satisfies it; api/ does not import
// controller-runtime, so callers name it: DecodeObjects[client.Object].
type Object interface {
	metav1.Object
	runtime.Object
}

// DecodeObjects reads a multi-document YAML or JSON stream of Kubernetes and
// Sluice objects known to s (a scheme from New). Unknown kinds and unknown
// fields are errors naming the document.
func DecodeObjects[T Object](r io.Reader, s *runtime.Scheme) ([]T, error) {
	decoder := Codecs(s).UniversalDeserializer()
	docs := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var out []T
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
		o, ok := obj.(T)
		if !ok {
			return nil, fmt.Errorf("document %d: %T is not an object with metadata", i, obj)
		}
		out = append(out, o)
	}
}

// isBlank reports whether a YAML document holds only comments, separators
// and white space.
func isBlank(doc []byte) bool {
	for line := range bytes.SplitSeq(doc, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return false
		}
	}
	return true
}

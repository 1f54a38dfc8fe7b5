package scheme

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestDecodeObjects(t *testing.T) {
	stream := `# a comment-only document is skipped
---
apiVersion: data.fluid.io/v1alpha1
kind: Dataset
metadata: {name: d, namespace: ns}
---
---
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
`
	objs, err := DecodeObjects[Object](strings.NewReader(stream), New())
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("decoded %d objects, want 2", len(objs))
	}
	if ds, ok := objs[0].(*datav1alpha1.Dataset); !ok || ds.Name != "d" || ds.Namespace != "ns" {
		t.Fatalf("first object = %#v", objs[0])
	}
	if _, ok := objs[1].(*corev1.ConfigMap); !ok {
		t.Fatalf("second object = %T", objs[1])
	}
}

func TestDecodeObjectsErrorsNameTheDocument(t *testing.T) {
	for name, stream := range map[string]string{
		"unknown kind":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: NoSuchKind\nmetadata: {name: b}\n",
		"unknown field": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\nnoSuchField: 1\n",
		"not an object": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMapList\nitems: []\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeObjects[Object](strings.NewReader(stream), New())
			if err == nil || !strings.Contains(err.Error(), "document 2") {
				t.Fatalf("err = %v, want an error naming document 2", err)
			}
		})
	}
}

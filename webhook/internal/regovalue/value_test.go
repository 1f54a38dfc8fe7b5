package regovalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestToCompactValueOmitsOnlyZeroStructs(t *testing.T) {
	q := resource.MustParse("1Gi")
	c := corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"memory": q}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{c, {Name: "bare"}}}}
	full, err := ToValue(pod)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := ToCompactValue(pod)
	if err != nil {
		t.Fatal(err)
	}
	get := func(v ast.Value, path ...string) ast.Value {
		for _, p := range path {
			o, ok := v.(ast.Object)
			if !ok {
				return nil
			}
			term := o.Get(ast.StringTerm(p))
			if term == nil {
				return nil
			}
			v = term.Value
		}
		return v
	}
	if get(full, "status") == nil || get(compact, "status") != nil {
		t.Errorf("status: full %v, compact %v; want it only in full", get(full, "status"), get(compact, "status"))
	}
	containers := get(compact, "spec", "containers").(*ast.Array)
	if get(containers.Elem(0).Value, "resources", "limits", "memory").String() != `"1Gi"` {
		t.Errorf("a set resource was dropped: %v", containers.Elem(0))
	}
	if get(containers.Elem(1).Value, "resources") != nil {
		t.Errorf("an empty resources object was kept: %v", containers.Elem(1))
	}
	if get(compact, "metadata", "name").String() != `"p"` {
		t.Error("metadata.name was dropped")
	}
}

type treeNode struct {
	Name     string     `json:"name"`
	Children []treeNode `json:"children,omitempty"`
	Next     *treeNode  `json:"next,omitempty"`
	Any      any        `json:"any,omitempty"`
}

// TestToValueRecursiveAndConcurrent converts a recursive type, and a PodSpec,
// from several goroutines at once (the per-type converters are built on
// first use and shared), checking each against the JSON round trip.
func TestToValueRecursiveAndConcurrent(t *testing.T) {
	q := resource.MustParse("1Gi")
	values := []any{
		treeNode{Name: "a", Children: []treeNode{{Name: "b", Next: &treeNode{Name: "c", Any: map[string]any{"x": []any{1, "y"}}}}}},
		&corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"memory": q}}}},
			Volumes:    []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &q}}}},
		},
	}
	want := make([]ast.Value, len(values))
	for i, v := range values {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if want[i], err = ast.ValueFromReader(bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(values))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, v := range values {
				got, err := ToValue(v)
				if err == nil && got.Compare(want[i]) != 0 {
					err = fmt.Errorf("value %d: got %v, want %v", i, got, want[i])
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

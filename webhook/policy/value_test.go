package policy

import (
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

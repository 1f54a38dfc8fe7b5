package snapshot

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Equal compares what policies see: a remembered Rego value (computed or
// not) and the FUSE template (for the mutators only) do not count, every
// field of the input does.
func TestEqualIsWhatPoliciesSee(t *testing.T) {
	dv := func() DatasetVolume {
		return DatasetVolume{Volume: "data", Claim: "c", Dataset: DatasetFacts{Namespace: "ns", Name: "d", Phase: "Bound",
			Runtime: RuntimeFacts{Type: "juicefs", FuseNodeSelector: map[string]string{"a": "b"}}}}
	}
	a, b := dv(), dv()
	a.value = &lazyValue{}
	if _, err := a.RegoValue(); err != nil {
		t.Fatal(err)
	}
	b.Fuse = &FuseTemplate{Container: corev1.Container{Name: "fuse"}}
	if !a.Equal(b) || !b.Equal(a) {
		t.Error("volumes that differ only in their remembered value and FUSE template are not equal")
	}
	b.Dataset.Runtime.FuseNodeSelector = map[string]string{"a": "c"}
	if a.Equal(b) {
		t.Error("volumes of different FUSE node selectors are equal")
	}
	b = dv()
	b.Dataset.Phase = "NotBound"
	if a.Equal(b) {
		t.Error("volumes of different phases are equal")
	}
	n1, n2 := Namespace{Name: "ns", Labels: map[string]string{"team": "a"}, value: &lazyValue{}}, Namespace{Name: "ns", Labels: map[string]string{"team": "a"}}
	if _, err := n1.RegoValue(); err != nil {
		t.Fatal(err)
	}
	if !n1.Equal(n2) {
		t.Error("namespaces that differ only in their remembered value are not equal")
	}
	n2.Labels = map[string]string{"team": "b"}
	if n1.Equal(n2) {
		t.Error("namespaces of different labels are equal")
	}
}

package podpatch

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/internal/randompod"
)

// withMutableFieldsOf returns a copy of p with the fields mutators change
// taken from q.
func withMutableFieldsOf(p, q *corev1.Pod) *corev1.Pod {
	out := p.DeepCopy()
	q = q.DeepCopy()
	out.Labels, out.Annotations = q.Labels, q.Annotations
	out.Spec.Volumes, out.Spec.InitContainers, out.Spec.Containers = q.Spec.Volumes, q.Spec.InitContainers, q.Spec.Containers
	out.Spec.Affinity = q.Spec.Affinity
	return out
}

// TestDiffMatchesReference compares Diff with its oracle, Reference, on the
// fixture Pods and on random changes of the fields mutators change. The
// one difference Diff is allowed is its documented one: a field equal on
// both sides under equality.Semantic (a quantity in another format) gets
// no operations.
func TestDiffMatchesReference(t *testing.T) {
	pods := fixturePods(t)
	rng := rand.New(rand.NewSource(3))
	check := func(name string, from, to *corev1.Pod) {
		t.Helper()
		got, err := Diff(from, to)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref, err := Reference(from, to)
		if err != nil {
			t.Fatal(err)
		}
		a, b := mutableFields(from), mutableFields(to)
		want := slices.DeleteFunc(ref, func(op jsonpatch.JsonPatchOperation) bool {
			for i := range a {
				under := op.Path == a[i].path || strings.HasPrefix(op.Path, a[i].path+"/")
				if under && !a[i].absent && !b[i].absent && equality.Semantic.DeepEqual(a[i].value, b[i].value) {
					return true
				}
			}
			return false
		})
		if g, w := canonicalOps(t, got), canonicalOps(t, want); !slices.Equal(g, w) {
			if !insertsContainers(from, to) {
				t.Fatalf("%s: Diff differs from Reference\ngot  %v\nwant %v", name, g, w)
			}
			checkApplies(t, name, from, to, got)
		}
	}
	for i, a := range pods {
		for j, b := range pods {
			check(fmt.Sprintf("fixtures %d->%d", i, j), a, withMutableFieldsOf(a, b))
		}
	}
	for i := 0; i < 1500; i++ {
		a := pods[rng.Intn(len(pods))].DeepCopy()
		for n := rng.Intn(3); n > 0; n-- {
			randompod.Perturb(rng, a)
		}
		b := a.DeepCopy()
		for n := 1 + rng.Intn(4); n > 0; n-- {
			randompod.Perturb(rng, b)
		}
		check(fmt.Sprintf("random %d", i), a, withMutableFieldsOf(a, b))
	}
}

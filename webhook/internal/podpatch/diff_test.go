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

// TestDiffAnnotatedIsTheDiffOfTheAnnotatedPod: where Diff finds a change,
// DiffAnnotated's operations are Diff's of the Pod
// with the annotation set (a new annotations map, another annotation, or
// one replaced), and it sets the annotation on to; where Diff finds none
// it returns none and leaves to as it was.
func TestDiffAnnotatedIsTheDiffOfTheAnnotatedPod(t *testing.T) {
	const key = "example.com/mutations"
	pods := fixturePods(t)
	rng := rand.New(rand.NewSource(5))
	check := func(name string, from, to *corev1.Pod) {
		t.Helper()
		plain, err := Diff(from, to)
		if err != nil {
			t.Fatal(err)
		}
		annotated := to.DeepCopy()
		got, err := DiffAnnotated(from, annotated, key, "affinity: required fluid.io/s-a-b")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(plain) == 0 {
			if len(got) != 0 || !equality.Semantic.DeepEqual(annotated, to) {
				t.Fatalf("%s: an unchanged Pod got %v, annotations %v", name, got, annotated.Annotations)
			}
			return
		}
		want := to.DeepCopy()
		if want.Annotations == nil {
			want.Annotations = map[string]string{}
		}
		want.Annotations[key] = "affinity: required fluid.io/s-a-b"
		if !equality.Semantic.DeepEqual(annotated, want) {
			t.Fatalf("%s: the Pod is not annotated: %v", name, annotated.Annotations)
		}
		wantOps, err := Diff(from, want)
		if err != nil {
			t.Fatal(err)
		}
		// (a map's operations come in no set order)
		if g, w := slices.Sorted(slices.Values(canonicalOps(t, got))), slices.Sorted(slices.Values(canonicalOps(t, wantOps))); !slices.Equal(g, w) {
			t.Fatalf("%s: DiffAnnotated differs from Diff of the annotated Pod\ngot  %v\nwant %v", name, g, w)
		}
	}
	for i, a := range pods {
		for j, b := range pods {
			check(fmt.Sprintf("fixtures %d->%d", i, j), a, withMutableFieldsOf(a, b))
			withKey := withMutableFieldsOf(a, b)
			withKey.Annotations = map[string]string{key: "stale", "other": "x"}
			check(fmt.Sprintf("fixtures %d->%d, annotated before", i, j), a, withKey)
		}
	}
	for i := 0; i < 500; i++ {
		a := pods[rng.Intn(len(pods))].DeepCopy()
		b := a.DeepCopy()
		for n := rng.Intn(4); n > 0; n-- {
			randompod.Perturb(rng, b)
		}
		check(fmt.Sprintf("random %d", i), a, withMutableFieldsOf(a, b))
	}
	if got, err := DiffAnnotated(pods[0], withMutableFieldsOf(pods[0], pods[1]), "", "x"); err != nil || slices.ContainsFunc(got, func(op jsonpatch.JsonPatchOperation) bool { return strings.Contains(op.Path, "mutations") }) {
		t.Fatalf("an empty key: %v, %v", got, err)
	}
}

package podpatch

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	evanjsonpatch "github.com/evanphx/json-patch/v5"
	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/internal/randompod"
)

// canonicalOps returns the operations as JSON with object keys sorted,
// sorted, so that patches compare as multisets (jsonpatch orders the
// operations of an object by map iteration).
func canonicalOps(t *testing.T, ops []jsonpatch.JsonPatchOperation) []string {
	t.Helper()
	out := make([]string, 0, len(ops))
	for _, op := range ops {
		raw, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		norm, _ := json.Marshal(v)
		out = append(out, string(norm))
	}
	slices.Sort(out)
	return out
}

// jsonDiff is what structDiff replaces: both sides marshalled and compared
// by jsonpatch.
func jsonDiff(t *testing.T, from, to any, path string) []jsonpatch.JsonPatchOperation {
	t.Helper()
	ops, err := reference(from, to)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops {
		ops[i].Path = path + ops[i].Path
	}
	return ops
}

func checkSameDiff(t *testing.T, name string, from, to any, path string) {
	t.Helper()
	got, unequal, err := structDiff(from, to, path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if unequal && equality.Semantic.DeepEqual(from, to) {
		t.Fatalf("%s: structDiff found them unequal, equality.Semantic equal", name)
	}
	want := jsonDiff(t, from, to, path)
	a, _ := json.Marshal(from)
	b, _ := json.Marshal(to)
	// Inserted containers are the one documented difference (insert.go):
	// for them only the patch's result is compared, below.
	if g, w := canonicalOps(t, got), canonicalOps(t, want); !slices.Equal(g, w) && !insertsContainers(from, to) {
		t.Fatalf("%s: structDiff differs from jsonpatch\nfrom %s\nto   %s\ngot  %v\nwant %v", name, a, b, g, w)
	}
	// The operations' order matters within arrays: applied in order, the
	// patch must turn from into to.
	doc, want2 := []byte(`{"spec":{"x":`+string(a)+`}}`), []byte(`{"spec":{"x":`+string(b)+`}}`)
	if path == "" {
		doc, want2 = a, b
	}
	if patched := apply(t, name, doc, got); !evanjsonpatch.Equal(patched, want2) {
		t.Fatalf("%s: patch %v turns %s into %s, want %s", name, got, doc, patched, want2)
	}
}

// TestStructDiffMatchesJSONPatch compares structDiff with the marshal and
// jsonpatch diff it replaces on the fixture Pods and on many random changes
// of them, over the fields mutators change and over whole Pods.
func TestStructDiffMatchesJSONPatch(t *testing.T) {
	pods := fixturePods(t)
	for i, a := range pods {
		for j, b := range pods {
			checkSameDiff(t, fmt.Sprintf("fixtures %d->%d", i, j), a, b, "")
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 1500; i++ {
		a := pods[rng.Intn(len(pods))].DeepCopy()
		for n := rng.Intn(3); n > 0; n-- {
			randompod.Perturb(rng, a)
		}
		b := a.DeepCopy()
		for n := 1 + rng.Intn(4); n > 0; n-- {
			randompod.Perturb(rng, b)
		}
		name := fmt.Sprintf("random %d", i)
		checkSameDiff(t, name, a, b, "")
		for _, f := range [][2]any{
			{a.Labels, b.Labels}, {a.Annotations, b.Annotations}, {a.Spec.Volumes, b.Spec.Volumes},
			{a.Spec.InitContainers, b.Spec.InitContainers}, {a.Spec.Containers, b.Spec.Containers}, {a.Spec.Affinity, b.Spec.Affinity},
		} {
			checkSameDiff(t, name, f[0], f[1], "/spec/x")
		}
	}
}

func fixturePods(t *testing.T) []*corev1.Pod {
	t.Helper()
	pods, err := randompod.Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

// insertsContainers says whether to only inserts containers into a
// container list of from (podpatch.Inserted), where structDiff's
// operations differ from jsonpatch's by design.
func insertsContainers(from, to any) bool {
	switch a := from.(type) {
	case *corev1.Pod:
		b := to.(*corev1.Pod)
		return Inserted(a.Spec.Containers, b.Spec.Containers) || Inserted(a.Spec.InitContainers, b.Spec.InitContainers)
	case []corev1.Container:
		return Inserted(a, to.([]corev1.Container))
	}
	return false
}

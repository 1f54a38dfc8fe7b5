package mutating

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/internal/randompod"
	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// TestInputValueMatchesJSONOnRandomPods checks the direct conversion of the
// policy input against the JSON round trip on the fixture Pods and random
// changes of them.
func TestInputValueMatchesJSONOnRandomPods(t *testing.T) {
	pods, err := randompod.Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	vols := testVolumes()
	for i := 0; i < 500; i++ {
		p := perturbed(rng, pods, 6)
		in := NewInput(Request{Pod: p, Operation: "CREATE", Namespace: "ns", DryRun: rng.Intn(2) == 0}, vols[:rng.Intn(2)], snapshot.Namespace{Name: "ns"}, rng.Intn(2) == 0)
		got, err := regovalue.ToValue(&in)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ast.ValueFromReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Fatalf("direct conversion differs from JSON:\n got %v\nwant %v", got, want)
		}
	}
}

// testVolumes is one Bound dataset volume, for the inputs of tests.
func testVolumes() []snapshot.DatasetVolume {
	return []snapshot.DatasetVolume{{Volume: "data", Claim: "c", Dataset: snapshot.DatasetFacts{Namespace: "ns", Name: "d", Phase: "Bound",
		Runtime:    snapshot.RuntimeFacts{Type: "juicefs", FuseNodeSelector: map[string]string{"a": "b"}},
		Localities: map[string][]corev1.NodeSelectorRequirement{"fluid.io/node": {{Key: "k", Operator: "In", Values: []string{"true"}}}}}}}
}

// perturbed is a copy of one of pods with fewer than n random changes.
func perturbed(rng *rand.Rand, pods []*corev1.Pod, n int) *corev1.Pod {
	p := pods[rng.Intn(len(pods))].DeepCopy()
	for k := rng.Intn(n); k > 0; k-- {
		randompod.Perturb(rng, p)
	}
	return p
}

package policycmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/policy"
)

// examplesDir holds the worked recipes of docs/policies.md.
var examplesDir = filepath.Join("..", "..", "policies", "examples")

// TestPolicyExamples runs `sluice policy test policies/examples`: every
// recipe's Rego tests, cases and ConfigMap, each recipe over the defaults
// alone.
func TestPolicyExamples(t *testing.T) {
	var out bytes.Buffer
	if err := runTests(context.Background(), &out, []string{examplesDir}, testOptions{verbose: true, skipDefaults: true}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	examples, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) < 6 {
		t.Fatalf("%d examples; docs/policies.md shows six", len(examples))
	}
	for _, e := range examples {
		dir := filepath.Join(examplesDir, e.Name())
		if !strings.Contains(out.String(), "PASS configmap "+filepath.Join(dir, "configmap.yaml")) {
			t.Errorf("%s: no configmap.yaml deploying it was checked", dir)
		}
		if n := strings.Count(out.String(), "PASS case "+filepath.Join(dir, "testdata")+string(filepath.Separator)); n < 2 {
			t.Errorf("%s: %d cases; show the policy at work and where it stops", dir, n)
		}
	}
}

// controlCases pass without their recipe's policy: they show where the
// policy stops (what it must not deny or change).
var controlCases = map[string]bool{
	"namespace-cache-budget/testdata/within-budget":                true,
	"operation-rules/testdata/dataload-labelled-allowed":           true,
	"operation-rules/testdata/datamigrate-other-namespace-allowed": true,
}

// TestPolicyExamplesNeedTheirPolicies runs every recipe's cases over the
// default policies alone: each fails, but for the control cases, so that
// each case tests its recipe's policy rather than the defaults.
func TestPolicyExamplesNeedTheirPolicies(t *testing.T) {
	ctx := context.Background()
	defaults, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		cases, err := fixture.Load(os.DirFS(filepath.Join(examplesDir, e.Name())), testdataDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			name := e.Name() + "/" + c.Name
			err := c.Run(ctx, defaults)
			switch {
			case controlCases[name] && err != nil:
				t.Errorf("control case %s fails over the defaults: %v", name, err)
			case !controlCases[name] && err == nil:
				t.Errorf("case %s passes over the defaults alone: it does not test its recipe", name)
			}
		}
	}
}

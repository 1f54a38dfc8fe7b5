package policies_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestRegoUnitTests runs every test_* rule of the embedded *_test.rego
// modules through the OPA SDK's test runner.
func TestRegoUnitTests(t *testing.T) {
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	results, err := policy.RunRegoTests(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 30 {
		t.Fatalf("only %d Rego tests ran; the default policies have more", len(results))
	}
	for _, r := range results {
		t.Run(r.Name, func(t *testing.T) {
			if !r.Passed {
				t.Fatalf("%s: %s", r.Location, r.Message)
			}
		})
	}
}

// TestFixtureCases runs every case under testdata/ through the webhook's
// pipeline, and each admitted Pod through it a second time, which must
// produce an empty patch. Every evaluation is checked against OPA's
// evaluator (policy.QuickChecked), and the queries compiled to closures
// must answer every one of them (none left to OPA).
func TestFixtureCases(t *testing.T) {
	unanswered := func() float64 {
		return testutil.ToFloat64(metrics.QuickEvaluations.WithLabelValues(policies.MutatingQuery, "opa")) +
			testutil.ToFloat64(metrics.QuickEvaluations.WithLabelValues(policies.ValidatingQuery, "opa"))
	}
	answered := func() float64 {
		return testutil.ToFloat64(metrics.QuickEvaluations.WithLabelValues(policies.MutatingQuery, "answered")) +
			testutil.ToFloat64(metrics.QuickEvaluations.WithLabelValues(policies.ValidatingQuery, "answered"))
	}
	before, answeredBefore := unanswered(), answered()
	defer func() {
		if n := unanswered() - before; n > 0 {
			t.Errorf("the closures left %v evaluations to OPA", n)
		}
		if answered() == answeredBefore {
			t.Error("the closures answered no evaluation")
		}
	}()
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := fixture.Load(policies.FS, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no fixture cases found")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := c.Run(context.Background(), b); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEveryDefaultModuleHasTests keeps each default policy module paired
// with a test module.
func TestEveryDefaultModuleHasTests(t *testing.T) {
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range b.ModuleIDs() {
		if id == "mutating/main.rego" || id == "validating/main.rego" {
			continue // assembles the decision; every test goes through it
		}
		testID := id[:len(id)-len(".rego")] + "_test.rego"
		if _, ok := b.Tests[testID]; !ok {
			t.Errorf("policy module %s has no %s", id, testID)
		}
	}
}

package dataop_test

import (
	"slices"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/policies"
)

// TestPolicySupportTableMatchesTheEngines: the validating webhook warns
// from policies/data.yaml's validating.operations.engines when a Dataset's
// engine cannot run an operation; the table must say what the engines do,
// or users are warned about operations that run, or not warned about ones
// the controller fails at once.
func TestPolicySupportTableMatchesTheEngines(t *testing.T) {
	data, err := policies.DefaultData(policies.ProfileRestricted)
	if err != nil {
		t.Fatal(err)
	}
	table := map[string][]string{}
	for kind, list := range dig(t, data, "validating", "operations", "engines") {
		for _, e := range list.([]any) {
			table[kind] = append(table[kind], e.(string))
		}
	}
	if got := table[string(datav1alpha1.DataProcessKind)]; !slices.Equal(got, []string{"*"}) {
		t.Errorf("DataProcess runs on every engine (engines/workloads/process), the table says %v", got)
	}
	for _, e := range engineCases {
		eng, ok := e.ops.(engines.Engine)
		if !ok {
			continue // engines/workloads/process, checked above
		}
		for kind, newOp := range kinds {
			if kind == datav1alpha1.DataProcessKind {
				continue
			}
			_, err := e.ops.Operation(engines.OperationRequest{Op: newOp(), Dataset: e.dataset(), Runtime: e.runtime})
			runs := err == nil
			listed := slices.Contains(table[string(kind)], eng.Type()) || slices.Contains(table[string(kind)], "*")
			if runs != listed {
				t.Errorf("%s %s: the engine runs it: %v; policies/data.yaml lists it: %v", eng.Type(), kind, runs, listed)
			}
		}
	}
}

// dig walks nested maps of policy data.
func dig(t *testing.T, m map[string]any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			t.Fatalf("policy data has no %q under %v", k, keys)
		}
		m = next
	}
	return m
}

package controller

import (
	"slices"
	"testing"

	"github.com/sluice-data/sluice/webhook/policy"
)

func TestConflictsFromTheDefaultPolicyData(t *testing.T) {
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Conflicts(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c["DataLoad"], []string{"DataLoad", "DataMigrate"}) || len(c["DataMigrate"]) != 4 || !slices.Equal(c["DataProcess"], []string{"DataMigrate"}) {
		t.Fatalf("conflicts = %v", c)
	}
	bad := policy.NewBundle()
	bad.Data = map[string]any{"validating": map[string]any{"operations": map[string]any{"conflicts": map[string]any{"DataLoad": "DataLoad"}}}}
	if _, err := Conflicts(bad); err == nil {
		t.Fatal("a conflict entry that is not a list must be an error")
	}
	if _, err := Conflicts(policy.NewBundle()); err == nil {
		t.Fatal("missing table must be an error")
	}
}

package claim

import (
	"slices"
	"testing"

	"github.com/sluice-data/sluice/policies"
)

func TestTableFromTheDefaultPolicyData(t *testing.T) {
	data, err := policies.DefaultData(policies.ProfileRestricted)
	if err != nil {
		t.Fatal(err)
	}
	c, err := TableFrom(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c["DataLoad"], []string{"DataLoad", "DataMigrate"}) || len(c["DataMigrate"]) != 4 || !slices.Equal(c["DataProcess"], []string{"DataMigrate"}) {
		t.Fatalf("conflicts = %v", c)
	}
	bad := map[string]any{"validating": map[string]any{"operations": map[string]any{"conflicts": map[string]any{"DataLoad": "DataLoad"}}}}
	if _, err := TableFrom(bad); err == nil {
		t.Fatal("a conflict entry that is not a list must be an error")
	}
	notNames := map[string]any{"validating": map[string]any{"operations": map[string]any{"conflicts": map[string]any{"DataLoad": []any{1}}}}}
	if _, err := TableFrom(notNames); err == nil {
		t.Fatal("a conflict entry that is not a kind name must be an error")
	}
	if _, err := TableFrom(map[string]any{}); err == nil {
		t.Fatal("missing table must be an error")
	}
}

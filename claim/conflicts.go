package claim

import (
	"context"
	"fmt"
)

// Conflicts is an operation conflict table: for each operation kind, the
// kinds whose holders block it.
type Conflicts map[string][]string

// For returns the kinds that block kind (a fixed table: the context is
// not used).
func (c Conflicts) For(_ context.Context, kind string) ([]string, error) { return c[kind], nil }

// ConflictsFrom reads the operation conflict table from policy data
// (validating.operations.conflicts), the table the validating webhook's
// policies use: for each operation kind, the kinds whose holders block it.
func ConflictsFrom(data map[string]any) (Conflicts, error) {
	v, _ := data["validating"].(map[string]any)
	ops, _ := v["operations"].(map[string]any)
	table, ok := ops["conflicts"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("policy data has no validating.operations.conflicts table")
	}
	out := make(Conflicts, len(table))
	for kind, list := range table {
		items, ok := list.([]any)
		if !ok {
			return nil, fmt.Errorf("validating.operations.conflicts.%s: want a list of kinds", kind)
		}
		for _, it := range items {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Errorf("validating.operations.conflicts.%s: want kind names", kind)
			}
			out[kind] = append(out[kind], s)
		}
	}
	return out, nil
}

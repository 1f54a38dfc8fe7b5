package claim

import (
	"context"
	"fmt"
)

// Table says which operation kinds block one: the table of the policy
// data the validating webhook's policies use
// (validating.operations.conflicts), so that an operation the controller
// claims for (a Cron run, one that ran after another, one the webhook did
// not see) waits for exactly what one claimed at admission would.
// PolicyTable reads it as the webhook serves it; Fixed is a table given
// once.
type Table interface {
	// For returns the kinds whose holders block an operation of kind.
	For(ctx context.Context, kind string) ([]string, error)
}

// Fixed is an operation conflict table given once: for each operation
// kind, the kinds whose holders block it.
type Fixed map[string][]string

// For returns the kinds that block kind (the context is not used).
func (c Fixed) For(_ context.Context, kind string) ([]string, error) { return c[kind], nil }

// ValidateTable checks that policy data holds a well-formed operation
// conflict table (TableFrom).
func ValidateTable(data map[string]any) error {
	_, err := TableFrom(data)
	return err
}

// TableFrom reads the operation conflict table from policy data
// (validating.operations.conflicts), the table the validating webhook's
// policies use: for each operation kind, the kinds whose holders block it.
func TableFrom(data map[string]any) (Fixed, error) {
	v, _ := data["validating"].(map[string]any)
	ops, _ := v["operations"].(map[string]any)
	table, ok := ops["conflicts"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("policy data has no validating.operations.conflicts table")
	}
	out := make(Fixed, len(table))
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

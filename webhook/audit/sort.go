package audit

import (
	"cmp"
	"slices"
)

// Sort orders findings by namespace, kind, name, policy and rule, so that
// reports and printed output do not depend on listing order.
func Sort(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Object.Namespace, b.Object.Namespace),
			cmp.Compare(a.Object.Kind, b.Object.Kind),
			cmp.Compare(a.Object.Name, b.Object.Name),
			cmp.Compare(a.Policy, b.Policy),
			cmp.Compare(a.Rule, b.Rule),
		)
	})
}

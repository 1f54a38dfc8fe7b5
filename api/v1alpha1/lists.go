package v1alpha1

import "strings"

// SplitList splits a comma-separated list as Fluid writes them in
// annotations, status and paths (status.operationRef's names,
// affinity.dataflow.fluid.io/labels, tieredstore paths), trimming each
// entry and leaving out empty ones. The result is never nil.
func SplitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

package quickeval

import (
	"encoding/json"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Same reports whether a and b are the same value written the same way,
// as their JSON: stricter than ast.Compare, for which 1 and 1.0 are equal.
// Tests and policy.QuickChecked compare the closures' answers with OPA's
// by it.
func Same(a, b ast.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Compare(b) != 0 {
		return false
	}
	ja, erra := ast.JSON(a)
	jb, errb := ast.JSON(b)
	if erra != nil || errb != nil {
		return false
	}
	x, erra := json.Marshal(ja)
	y, errb := json.Marshal(jb)
	return erra == nil && errb == nil && string(x) == string(y)
}

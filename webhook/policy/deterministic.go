package policy

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// deterministic reports whether the compiled modules call no builtin that
// OPA marks nondeterministic (time.now_ns, rand.intn, http.send, uuid.rfc4122,
// ...), so that equal inputs always give equal decisions.
func deterministic(c *ast.Compiler) bool {
	ok := true
	for _, m := range c.Modules {
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			if !e.IsCall() {
				return false
			}
			name := e.Operator().String()
			if b, found := ast.BuiltinMap[name]; found && b.Nondeterministic {
				ok = false
				return true
			}
			return false
		})
	}
	return ok
}

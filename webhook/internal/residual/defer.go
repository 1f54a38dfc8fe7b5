package residual

import "github.com/open-policy-agent/opa/v1/ast"

// Defer returns body with the expressions that only build values for the
// rule's head moved to its end, in their order (see the package comment):
// calls, not negated and without with modifiers, whose output variable no
// expression that stays reads. A call whose output only such moved calls
// read (the dataset reference inside a message) moves with them.
func Defer(body ast.Body) ast.Body {
	moved := make([]bool, len(body))
	for changed := true; changed; {
		changed = false
		for i, expr := range body {
			if moved[i] {
				continue
			}
			out, ok := output(expr)
			if !ok || readByStaying(body, moved, i, out) {
				continue
			}
			moved[i], changed = true, true
		}
	}
	out := make(ast.Body, 0, len(body))
	for i, expr := range body {
		if !moved[i] {
			out = append(out, expr)
		}
	}
	if len(out) == len(body) {
		return body
	}
	for i, expr := range body {
		if moved[i] {
			out = append(out, expr)
		}
	}
	for i, expr := range out {
		expr.Index = i
	}
	return out
}

// output returns the variable a call expression binds its value to.
func output(expr *ast.Expr) (ast.Var, bool) {
	if expr.Negated || len(expr.With) > 0 || !expr.IsCall() {
		return "", false
	}
	ops := expr.Operands()
	if len(ops) == 0 {
		return "", false
	}
	v, ok := ops[len(ops)-1].Value.(ast.Var)
	if !ok || v.IsWildcard() {
		return "", false
	}
	// A call whose declared arity takes every operand is a check, not a
	// value (startswith(a, b)); one more operand than its arguments is
	// its output (sprintf(f, args, out)).
	if decl, ok := ast.BuiltinMap[expr.Operator().String()]; !ok || len(ops) != len(decl.Decl.FuncArgs().Args)+1 {
		return "", false
	}
	return v, true
}

// readByStaying reports whether an expression of body other than the
// i-th and not moved reads v.
func readByStaying(body ast.Body, moved []bool, i int, v ast.Var) bool {
	for j, expr := range body {
		if j != i && !moved[j] && expr.Vars(ast.VarVisitorParams{}).Contains(v) {
			return true
		}
	}
	return false
}

package catalogue

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// walker reads compiled rules: in a compiled module every call is an
// expression of its own with its output as its last argument, every
// reference to another rule is a full data ref, and local variables are
// unique, so a rule's body reads as a list of assignments and tests.
type walker struct {
	c *ast.Compiler
	// keys and values memoise what eval found for a rule (with its
	// arguments).
	keys   map[string][]path
	values map[string]path
}

func newWalker(c *ast.Compiler) *walker {
	return &walker{c: c, keys: map[string][]path{}, values: map[string]path{}}
}

// rulesOf returns the rules a data ref names and the rest of the ref
// below them: data.sluice.validating.guards_data["*"][x] names the rules
// of guards_data, and ["*"][x] indexes their value.
func (w *walker) rulesOf(ref ast.Ref) ([]*ast.Rule, ast.Ref) {
	if !ref.HasPrefix(ast.DefaultRootRef) {
		return nil, nil
	}
	n := len(ref)
	for i := 1; i < len(ref); i++ {
		if !ref[i].IsGround() {
			n = i
			break
		}
	}
	for i := n; i > 1; i-- {
		if rs := w.c.GetRulesExact(ref[:i]); len(rs) > 0 {
			return rs, ref[i:]
		}
	}
	return nil, nil
}

// definitions are a rule and its else branches.
func definitions(r *ast.Rule) []*ast.Rule {
	var out []*ast.Rule
	for ; r != nil; r = r.Else {
		out = append(out, r)
	}
	return out
}

// assignments are the variables a body binds to a term (x = term),
// including the bodies of its comprehensions.
func assignments(body ast.Body) map[ast.Var]*ast.Term {
	out := map[ast.Var]*ast.Term{}
	ast.WalkExprs(body, func(e *ast.Expr) bool {
		if !e.IsEquality() && !e.IsAssignment() {
			return false
		}
		a, b := e.Operand(0), e.Operand(1)
		if v, ok := a.Value.(ast.Var); ok {
			out[v] = b
		} else if v, ok := b.Value.(ast.Var); ok {
			out[v] = a
		}
		return false
	})
	return out
}

// calls returns the call expressions of a body, its comprehensions'
// included, whose last argument is out.
func callsInto(body ast.Body, out ast.Var) []*ast.Expr {
	var found []*ast.Expr
	ast.WalkExprs(body, func(e *ast.Expr) bool {
		if !e.IsCall() {
			return false
		}
		ops := e.Operands()
		if len(ops) > 0 && ops[len(ops)-1].Value.Compare(out) == 0 {
			found = append(found, e)
		}
		return false
	})
	return found
}

// denyName is the rule name a deny definition emits: the "rule" key of
// the object it adds, directly or through a function's value (deny_at).
func (w *walker) denyName(r *ast.Rule) (string, bool) {
	return w.ruleField(r.Head.Key, r.Body)
}

func (w *walker) ruleField(t *ast.Term, body ast.Body) (string, bool) {
	switch v := t.Value.(type) {
	case ast.Object:
		f := v.Get(ast.StringTerm("rule"))
		if f == nil {
			return "", false
		}
		if s, ok := f.Value.(ast.String); ok {
			return string(s), true
		}
		return w.ruleField(f, body)
	case ast.Var:
		if a, ok := assignments(body)[v]; ok {
			return w.ruleField(a, body)
		}
		for _, call := range callsInto(body, v) {
			if name, ok := w.callRuleField(call); ok {
				return name, true
			}
		}
	}
	return "", false
}

// callRuleField is the "rule" key of a function's value, when it is one
// of the function's arguments given as a string at the call.
func (w *walker) callRuleField(call *ast.Expr) (string, bool) {
	ref := call.Operator()
	args := call.Operands()
	for _, fn := range w.c.GetRulesExact(ref) {
		obj, ok := fn.Head.Value.Value.(ast.Object)
		if !ok {
			continue
		}
		f := obj.Get(ast.StringTerm("rule"))
		if f == nil {
			continue
		}
		for i, param := range fn.Head.Args {
			if i < len(args) && param.Equal(f) {
				if s, ok := args[i].Value.(ast.String); ok {
					return string(s), true
				}
			}
		}
		if s, ok := f.Value.(ast.String); ok {
			return string(s), true
		}
	}
	return "", false
}

// decisionParts are the rules whose values the decision document holds
// under keys.
func (w *walker) decisionParts(decision []*ast.Rule, keys []string) []*ast.Rule {
	var out []*ast.Rule
	for _, d := range decision {
		obj, ok := w.value(d).Value.(ast.Object)
		if !ok {
			continue
		}
		env := assignments(d.Body)
		for _, k := range keys {
			part := obj.Get(ast.StringTerm(k))
			if part == nil {
				continue
			}
			ast.WalkVars(part, func(v ast.Var) bool {
				if t, ok := env[v]; ok {
					if ref, ok := t.Value.(ast.Ref); ok {
						rs, _ := w.rulesOf(ref)
						out = append(out, rs...)
					}
				}
				return false
			})
		}
	}
	return out
}

// value is a rule's value term, the term a body variable holds when the
// head names one.
func (w *walker) value(r *ast.Rule) *ast.Term {
	t := r.Head.Value
	if t == nil {
		return ast.NullTerm()
	}
	if v, ok := t.Value.(ast.Var); ok {
		if a, ok := assignments(r.Body)[v]; ok {
			return a
		}
	}
	return t
}

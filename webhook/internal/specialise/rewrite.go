package specialise

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// dropFalseRules removes from m the rules that a decided comparison made
// unsatisfiable, keeping one rule per rule reference: a partial set or
// object with no rule at all is undefined, not empty. Rules with an else
// chain and default rules stay.
func dropFalseRules(m *ast.Module) {
	kept := m.Rules[:0]
	remaining := map[string]int{}
	for _, r := range m.Rules {
		remaining[r.Ref().String()]++
	}
	for _, r := range m.Rules {
		k := r.Ref().String()
		if r.Else == nil && !r.Default && remaining[k] > 1 && unsatisfiable(r.Body) {
			remaining[k]--
			continue
		}
		kept = append(kept, r)
	}
	m.Rules = kept
}

// unsatisfiable reports whether body has an expression that is false.
func unsatisfiable(body ast.Body) bool {
	for _, e := range body {
		if b, ok := e.Terms.(*ast.Term); ok && len(e.With) == 0 {
			if v, ok := b.Value.(ast.Boolean); ok && bool(v) == e.Negated {
				return true
			}
		}
	}
	return false
}

// bindObjectKeys rewrites the residual's object rules with a constant key,
// p["k"] = v if body, as p[key] = v if { body; key = "k" }. Partial
// evaluation writes a key bound in the body into the head, and OPA
// evaluates an object whose rules have constant keys as a tree of rules,
// assembled on every evaluation; with a variable key it is one set of
// rules, and partial evaluation folds it to {} when none can hold. (A key
// that is a valid identifier, p.k, partial evaluation writes as rule k of
// a package p; those are left as they are.) An object is rewritten only if
// every rule below it, in any of the modules
// (partial evaluation may put a deeper rule, p.a.b := v, in a package of
// its own), is a plain p[key] = value: no function, default, else chain or
// deeper reference.
func bindObjectKeys(modules []*ast.Module) {
	objects := map[string][]*ast.Rule{} // object path -> its one-key rules
	var deeper []ast.Ref                // paths of every other rule
	for _, m := range modules {
		for _, r := range m.Rules {
			path := m.Package.Path.Extend(r.Head.Ref())
			h := r.Head
			if len(h.Ref()) == 2 && len(h.Args) == 0 && h.Value != nil && !r.Default && r.Else == nil {
				k := path[:len(path)-1].String()
				objects[k] = append(objects[k], r)
				continue
			}
			deeper = append(deeper, path)
		}
	}
	for _, p := range deeper {
		for i := 1; i <= len(p); i++ {
			delete(objects, p[:i].String())
		}
	}
	n := 0
	for _, rules := range objects {
		for _, r := range rules {
			key := r.Head.Ref()[1]
			if !ast.IsScalar(key.Value) {
				continue
			}
			v := ast.VarTerm(fmt.Sprintf("__sluice_key%d__", n))
			n++
			ref := r.Head.Ref().Copy()
			ref[1] = v
			r.Head.SetRef(ref)
			if r.Head.Key != nil {
				r.Head.Key = v
			}
			r.Body.Append(ast.Equality.Expr(v, key))
		}
	}
}

package policy

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A residual policy (the query after partial evaluation with the policy
// data known) often compares a fixed input value with constants: the
// default mutating policies test input.pod.metadata.labels["serverless.
// fluid.io/inject"] == "true" in every sidecar rule and its negation in
// every affinity rule. Which of those comparisons hold splits inputs into a
// few classes, and within a class the comparisons are constants: each
// class gets a copy of the residual with them decided, partially evaluated
// again, so that rules that cannot hold for the class are folded away (a
// set no rule can add to becomes a constant empty set). Everything else,
// including every other read of the same input values, is evaluated as
// before, so a specialised query gives the result of the general one for
// every input of its class.

// probe is one ground input reference that the residual compares with
// scalar constants.
type probe struct {
	path   ast.Ref // below input
	consts []ast.Value
}

// class returns the class of the probe's value in input: the index of the
// constant it equals, len(consts) for another value, len(consts)+1 when it
// is undefined.
func (p probe) class(input ast.Value) byte {
	v, err := input.Find(p.path)
	if err != nil {
		return byte(len(p.consts) + 1)
	}
	for i, c := range p.consts {
		if v.Compare(c) == 0 {
			return byte(i)
		}
	}
	return byte(len(p.consts))
}

// decided reports the truth of comparison op between a value of class cls
// and constant c.
func (p probe) decided(op string, cls byte, c ast.Value) bool {
	if int(cls) == len(p.consts)+1 {
		return false // an undefined operand makes every comparison undefined
	}
	equal := int(cls) < len(p.consts) && p.consts[cls].Compare(c) == 0
	if op == ast.NotEqual.Name {
		return !equal
	}
	return equal
}

// comparison recognises an expression that compares a ground input
// reference with a scalar: ref = c, ref == c or ref != c (either order), or
// the reference alone, which holds as ref != false does (defined, and not
// false).
func comparison(e *ast.Expr) (op string, ref ast.Ref, c ast.Value, ok bool) {
	if len(e.With) > 0 {
		return "", nil, nil, false
	}
	if t, isTerm := e.Terms.(*ast.Term); isTerm {
		r, isRef := t.Value.(ast.Ref)
		if !isRef || !inputRef(r) {
			return "", nil, nil, false
		}
		return ast.NotEqual.Name, r[1:], ast.Boolean(false), true
	}
	if !e.IsCall() || len(e.Operands()) != 2 {
		return "", nil, nil, false
	}
	switch op = e.Operator().String(); op {
	case ast.Equality.Name, ast.Equal.Name, ast.NotEqual.Name:
	default:
		return "", nil, nil, false
	}
	a, b := e.Operand(0), e.Operand(1)
	r, isRef := a.Value.(ast.Ref)
	if !isRef {
		r, isRef = b.Value.(ast.Ref)
		b = a
	}
	if !isRef || !inputRef(r) || !ast.IsScalar(b.Value) {
		return "", nil, nil, false
	}
	return op, r[1:], b.Value, true
}

// inputRef reports whether r is a ground reference below input.
func inputRef(r ast.Ref) bool {
	return len(r) >= 2 && r[0].Equal(ast.InputRootDocument) && r.IsGround()
}

// findProbes lists the comparisons of the residual query and support
// modules, one probe per input reference, in a stable order.
func findProbes(query ast.Body, support []*ast.Module) []probe {
	var probes []probe
	index := map[string]int{}
	visit := func(e *ast.Expr) bool {
		_, ref, c, ok := comparison(e)
		if !ok {
			return false
		}
		k := ref.String()
		i, seen := index[k]
		if !seen {
			i = len(probes)
			index[k] = i
			probes = append(probes, probe{path: ref})
		}
		for _, have := range probes[i].consts {
			if have.Compare(c) == 0 {
				return false
			}
		}
		probes[i].consts = append(probes[i].consts, c)
		return false
	}
	ast.WalkExprs(query, visit)
	for _, m := range support {
		ast.WalkExprs(m, visit)
	}
	return probes
}

// classKey is the class of an input over a specializer's probes: a byte
// per probe, in an array so that computing it and looking it up in a map
// (as string(key[:n])) allocates nothing.
type classKey [maxProbes]byte

// classOf returns the class of input over probes (at most maxProbes).
func classOf(probes []probe, input ast.Value) classKey {
	var key classKey
	for i, p := range probes {
		key[i] = p.class(input)
	}
	return key
}

// decide replaces, in x (a copy of residual rules or queries), every
// comparison that probes cover by its truth for class key.
func decide(x any, probes []probe, key classKey) {
	index := make(map[string]int, len(probes))
	for i, p := range probes {
		index[p.path.String()] = i
	}
	ast.WalkExprs(x, func(e *ast.Expr) bool {
		op, ref, c, ok := comparison(e)
		if !ok {
			return false
		}
		i := index[ref.String()]
		e.Terms = ast.BooleanTerm(probes[i].decided(op, key[i], c))
		return false
	})
}

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

// rebindsInput reports whether any module replaces the input with a `with`
// modifier; within such an expression the input differs from the one the
// class was computed from, so nothing is specialised.
func rebindsInput(modules map[string]*ast.Module) bool {
	found := false
	for _, m := range modules {
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			for _, w := range e.With {
				if r, ok := w.Target.Value.(ast.Ref); ok && r[0].Equal(ast.InputRootDocument) {
					found = true
				}
			}
			return found
		})
	}
	return found
}

// bindObjectKeys rewrites the residual's object rules with a constant key,
// p["k"] = v if body, as p[key] = v if { body; key = "k" }. Partial
// evaluation writes a key bound in the body into the head, and OPA
// evaluates an object whose rules have constant keys as a tree of rules,
// assembled on every evaluation; with a variable key it is one set of
// rules, and partial evaluation folds it to {} when none can hold. Objects
// with a rule that is not a plain key = value (a function, a default, an
// else chain, a deeper reference) are left alone.
func bindObjectKeys(modules []*ast.Module) {
	type group struct{ rules []*ast.Rule }
	groups := map[string]*group{}
	eligible := map[string]bool{}
	for _, m := range modules {
		for _, r := range m.Rules {
			h := r.Head
			k := m.Package.Path.Extend(h.Ref()[:1]).String()
			if groups[k] == nil {
				groups[k], eligible[k] = &group{}, true
			}
			groups[k].rules = append(groups[k].rules, r)
			if len(h.Args) > 0 || h.Value == nil || len(h.Ref()) != 2 || r.Default || r.Else != nil {
				eligible[k] = false
			}
		}
	}
	n := 0
	for k, g := range groups {
		if !eligible[k] {
			continue
		}
		for _, r := range g.rules {
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

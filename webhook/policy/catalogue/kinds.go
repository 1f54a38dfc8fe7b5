package catalogue

import (
	"maps"

	"github.com/open-policy-agent/opa/v1/ast"
)

var (
	inputKind = ast.MustParseRef("input.kind")
	member    = ast.Member.Ref()
	union     = ast.Or.Ref()
)

// kindSet is a set of object kinds.
type kindSet map[string]bool

// kindsOf returns the kinds of object a rule's definition judges, as its
// body states them (input.kind == "X", input.kind in a set, or a rule
// such as is_runtime that does), and false if it states none.
func (w *walker) kindsOf(r *ast.Rule) (kindSet, bool) {
	var out kindSet
	vars := map[ast.Var]bool{}    // variables holding input.kind
	sets := map[ast.Var]kindSet{} // variables holding a set of kinds
	isKind := func(t *ast.Term) bool {
		switch v := t.Value.(type) {
		case ast.Ref:
			return v.Equal(inputKind)
		case ast.Var:
			return vars[v]
		}
		return false
	}
	constrain := func(s kindSet) {
		if out == nil {
			out = maps.Clone(s)
			return
		}
		for k := range out {
			if !s[k] {
				delete(out, k)
			}
		}
	}
	for _, e := range r.Body {
		if e.Negated {
			continue
		}
		switch {
		case e.IsEquality():
			a, b := e.Operand(0), e.Operand(1)
			for _, pair := range [2][2]*ast.Term{{a, b}, {b, a}} {
				v, ok := pair[0].Value.(ast.Var)
				switch {
				case ok && pair[1].Value.Compare(inputKind) == 0:
					vars[v] = true
				case ok && !vars[v]:
					if s, ok := w.kindsIn(pair[1], sets); ok {
						sets[v] = s
					}
				case isKind(pair[0]):
					if s, ok := pair[1].Value.(ast.String); ok {
						constrain(kindSet{string(s): true})
					}
				}
			}
		case e.IsCall() && e.Operator().Equal(member):
			ops := e.Operands()
			if len(ops) == 2 && isKind(ops[0]) {
				if s, ok := w.kindsIn(ops[1], sets); ok {
					constrain(s)
				}
			}
		case e.IsCall() && e.Operator().Equal(union):
			ops := e.Operands()
			a, okA := w.kindsIn(ops[0], sets)
			b, okB := w.kindsIn(ops[1], sets)
			if v, ok := ops[2].Value.(ast.Var); ok && okA && okB {
				u := maps.Clone(a)
				maps.Copy(u, b)
				sets[v] = u
			}
		}
		// The body holds only where the rules its expression reads are
		// defined: a rule such as is_runtime, or reference (defined for
		// Datasets) in reference.error.
		for _, t := range termsOf(e) {
			if ref, ok := t.Value.(ast.Ref); ok && ref.HasPrefix(ast.DefaultRootRef) {
				if s, ok := w.ruleKinds(ref); ok {
					constrain(s)
				}
			}
		}
	}
	return out, out != nil
}

// ruleKinds are the kinds a complete rule (is_runtime, reference) is
// defined for: those of each of its definitions and else branches, if
// every one states some and none is a default.
func (w *walker) ruleKinds(ref ast.Ref) (kindSet, bool) {
	rs, _ := w.rulesOf(ref)
	if len(rs) == 0 {
		return nil, false
	}
	out := kindSet{}
	for _, r := range rs {
		if len(r.Head.Args) > 0 || r.Default || r.Head.Key != nil {
			return nil, false // a function, a default, a partial set or object
		}
		for _, d := range definitions(r) {
			s, ok := w.kindsOf(d)
			if !ok {
				return nil, false
			}
			maps.Copy(out, s)
		}
	}
	return out, true
}

// kindsIn is the set of strings a term is: a set of strings, a variable
// holding one, or a rule whose value is one (operation_kinds).
func (w *walker) kindsIn(t *ast.Term, sets map[ast.Var]kindSet) (kindSet, bool) {
	switch v := t.Value.(type) {
	case ast.Var:
		s, ok := sets[v]
		return s, ok
	case ast.Set:
		out := kindSet{}
		ok := true
		v.Foreach(func(e *ast.Term) {
			if s, isStr := e.Value.(ast.String); isStr {
				out[string(s)] = true
			} else {
				ok = false
			}
		})
		return out, ok
	case ast.Ref:
		rs, rest := w.rulesOf(v)
		if len(rs) != 1 || len(rest) > 0 || len(rs[0].Head.Args) > 0 || rs[0].Head.Value == nil {
			return nil, false
		}
		return w.kindsIn(w.value(rs[0]), sets)
	}
	return nil, false
}

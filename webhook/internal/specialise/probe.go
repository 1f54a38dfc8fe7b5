package specialise

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

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
// and constant c (for a comparison that is not a negated !=).
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

// decidable calls f for every comparison in x (residual rules or a query)
// that may be decided: recognised by comparison, not a negated call of !=, and
// preceded in its body only by expressions that cannot raise an error.
func decidable(x any, f func(e *ast.Expr, op string, ref ast.Ref, c ast.Value)) {
	ast.WalkBodies(x, func(b ast.Body) bool {
		for _, e := range b {
			if op, ref, c, ok := comparison(e); ok && !(e.Negated && e.IsCall() && op == ast.NotEqual.Name) {
				f(e, op, ref, c)
			}
			if !errorFree(e) {
				break
			}
		}
		return false
	})
}

// errorFree reports whether e cannot raise an error: a term, or an
// equality or inequality of terms, without calls, comprehensions or
// references to other documents than input and local variables.
func errorFree(e *ast.Expr) bool {
	if len(e.With) > 0 {
		return false
	}
	var terms []*ast.Term
	switch t := e.Terms.(type) {
	case *ast.Term:
		terms = []*ast.Term{t}
	case []*ast.Term:
		switch e.Operator().String() {
		case ast.Equality.Name, ast.Equal.Name, ast.NotEqual.Name:
			terms = e.Operands()
		default:
			return false
		}
	default: // some, every
		return false
	}
	free := true
	for _, t := range terms {
		ast.WalkTerms(t, func(x *ast.Term) bool {
			switch v := x.Value.(type) {
			case ast.Call, *ast.ArrayComprehension, *ast.SetComprehension, *ast.ObjectComprehension:
				free = false
			case ast.Ref:
				if _, local := v[0].Value.(ast.Var); !local || v[0].Equal(ast.DefaultRootDocument) {
					free = false
				}
			}
			return !free
		})
	}
	return free
}

// findProbes lists the decidable comparisons of the residual query and
// support modules, one probe per input reference, in a stable order.
func findProbes(query ast.Body, support []*ast.Module) []probe {
	var probes []probe
	index := map[string]int{}
	visit := func(_ *ast.Expr, _ string, ref ast.Ref, c ast.Value) {
		k := ref.String()
		i, seen := index[k]
		if !seen {
			i = len(probes)
			index[k] = i
			probes = append(probes, probe{path: ref})
		}
		for _, have := range probes[i].consts {
			if have.Compare(c) == 0 {
				return
			}
		}
		probes[i].consts = append(probes[i].consts, c)
	}
	decidable(query, visit)
	for _, m := range support {
		decidable(m, visit)
	}
	return probes
}

// classKey is the class of an input over a Specialiser's probes: a byte
// per probe, in a fixed-size array (a map key as it is), so that computing
// it and looking it up allocates nothing.
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
// decidable comparison by its truth for class key.
func decide(x any, probes []probe, key classKey) {
	index := make(map[string]int, len(probes))
	for i, p := range probes {
		index[p.path.String()] = i
	}
	decidable(x, func(e *ast.Expr, op string, ref ast.Ref, c ast.Value) {
		i := index[ref.String()]
		e.Terms = ast.BooleanTerm(probes[i].decided(op, key[i], c))
	})
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

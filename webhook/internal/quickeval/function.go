package quickeval

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// function is a compiled function of the bundle: its definitions, each
// with its else chain.
type function struct {
	arity int
	rules []*rule
	def   *ast.Term
}

// function compiles the function op refers to.
func (c *compilation) function(op ast.Ref) (*function, error) {
	tn := c.compiler.RuleTree.Find(op)
	if tn == nil || len(tn.Values) == 0 {
		return nil, unsupported("function %v", op)
	}
	if fn, ok := c.functions[tn]; ok {
		return fn, nil
	}
	fn := &function{arity: -1}
	c.functions[tn] = fn
	for _, r := range tn.Values {
		if fn.arity >= 0 && len(r.Head.Args) != fn.arity || len(r.Head.Args) == 0 {
			return nil, unsupported("function %v", op)
		}
		fn.arity = len(r.Head.Args)
		if r.Default {
			if !r.Head.Value.IsGround() {
				return nil, unsupported("default %v", op)
			}
			fn.def = r.Head.Value
			continue
		}
		cr, err := c.rule(r, nil)
		if err != nil {
			return nil, err
		}
		fn.rules = append(fn.rules, cr)
	}
	return fn, nil
}

// call is the function's value for args (nil: undefined).
func (fn *function) call(s *state, args []*ast.Term) (*ast.Term, error) {
	var val *ast.Term
	for _, top := range fn.rules {
		err := chainValue(s, top, &val, func(r *rule, k func(frame) error) error {
			f := s.frame(r.nslots)
			return matchArgs(s, f, r.args, args, func() error { return s.runBody(f, r.body, nil, k) })
		})
		if err != nil {
			return nil, err
		}
	}
	if val == nil {
		val = fn.def
	}
	return val, nil
}

func matchArgs(s *state, f frame, pats []*term, args []*ast.Term, k func() error) error {
	if len(pats) == 0 {
		return k()
	}
	if p := pats[0]; p.kind == kVar && f[p.slot] == nil {
		f[p.slot] = args[0]
		err := matchArgs(s, f, pats[1:], args[1:], k)
		f[p.slot] = nil
		return err
	}
	return pats[0].match(s, f, args[0], func() error { return matchArgs(s, f, pats[1:], args[1:], k) })
}

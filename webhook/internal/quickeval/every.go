package quickeval

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

// every compiles every k, v in domain { body }: it holds when the domain is
// a collection and the body has a solution for each of its elements (the
// first one found, as OPA looks for no other); an array's keys are its
// indices, a set's its elements. Its variables are local.
func (sc *scope) every(ev *ast.Every, bound varSet) (step, error) {
	domain, err := sc.term(ev.Domain, bound)
	if err != nil {
		return nil, err
	}
	if !groundable(domain, ev.Domain, bound) {
		return nil, unsupported("every over %v", ev.Domain)
	}
	inner := bound.clone()
	key := &term{kind: kConst, val: ast.Wildcard}
	if ev.Key != nil {
		if key, err = sc.plain(ev.Key, inner); err != nil {
			return nil, err
		}
	}
	value, err := sc.plain(ev.Value, inner)
	if err != nil {
		return nil, err
	}
	inner.bindVars(ev.Key)
	inner.bindVars(ev.Value)
	body, err := sc.body(ev.Body, inner)
	if err != nil {
		return nil, err
	}
	holds := func(s *state, f frame, k, v *ast.Term) (bool, error) {
		var found bool
		err := key.matchAny(s, f, k, func() error {
			return value.match(s, f, v, func() error {
				err := evalBody(s, f, body, stopAtFirst)
				if err == errFound {
					found = true
					return errFound
				}
				return err
			})
		})
		if err == errFound {
			err = nil
		}
		return found, err
	}
	return func(r *run, i int) error {
		d, err := domain.plug(r.s, r.f)
		if err != nil || d == nil {
			return err
		}
		all := true
		each := func(k, v *ast.Term) error {
			ok, err := holds(r.s, r.f, k, v)
			if err != nil {
				return err
			}
			if !ok {
				all = false
				return errFound
			}
			return nil
		}
		switch c := d.Value.(type) {
		case ast.Object:
			err = c.Iter(each)
		case *ast.Array:
			for j := 0; j < c.Len() && err == nil; j++ {
				err = each(ast.InternedTerm(j), c.Elem(j))
			}
		case ast.Set:
			err = c.Iter(func(e *ast.Term) error { return each(e, e) })
		default:
			return nil
		}
		if err != nil && err != errFound {
			return err
		}
		if !all {
			return nil
		}
		return r.next(i + 1)
	}, nil
}

// matchAny is match, for which the wildcard constant matches anything.
func (t *term) matchAny(s *state, f frame, v *ast.Term, k func() error) error {
	if t.kind == kConst && t.val == ast.Wildcard {
		return k()
	}
	return t.match(s, f, v, k)
}

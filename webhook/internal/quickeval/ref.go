package quickeval

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

type rootKind uint8

const (
	rInput rootKind = iota
	rVar            // a variable's value
	rConst          // base data, read when the program was compiled (nil: none)
	rDoc            // a virtual document: rules
)

// refCode is a compiled reference: a root and the keys after it.
type refCode struct {
	root rootKind
	slot int
	val  *ast.Term
	doc  *node
	segs []seg
}

// seg is a key of a reference: a constant, or a variable that iterates
// over the collection's keys when it is unbound.
type seg struct {
	key  *ast.Term // nil: the variable in slot
	slot int
}

func (rc *refCode) rootValue(s *state, f frame) (*ast.Term, error) {
	switch rc.root {
	case rInput:
		return s.input, nil
	case rVar:
		if v := f[rc.slot]; v != nil {
			return v, nil
		}
		return nil, errUnbound
	case rConst:
		return rc.val, nil
	default:
		return rc.doc.value(s)
	}
}

// ground reports whether none of the reference's variables is unbound in
// f: it has one value at most (lookup), and does not iterate.
func (rc *refCode) ground(f frame) bool {
	for _, sg := range rc.segs {
		if sg.key == nil && f[sg.slot] == nil {
			return false
		}
	}
	return true
}

// lookup is the reference's single value (nil: undefined); its variables
// must be bound.
func (rc *refCode) lookup(s *state, f frame) (*ast.Term, error) {
	v, err := rc.rootValue(s, f)
	if err != nil {
		return nil, err
	}
	for _, sg := range rc.segs {
		if v == nil {
			return nil, nil
		}
		key := sg.key
		if key == nil {
			if key = f[sg.slot]; key == nil {
				return nil, errUnbound
			}
		}
		v = index(v, key)
	}
	return v, nil
}

// walk calls k with each value the reference reaches, binding its unbound
// variables to the keys on the way, in OPA's order.
func (rc *refCode) walk(s *state, f frame, k func(*ast.Term) error) error {
	v, err := rc.rootValue(s, f)
	if err != nil || v == nil {
		return err
	}
	return rc.walkFrom(f, v, 0, k)
}

func (rc *refCode) walkFrom(f frame, v *ast.Term, i int, k func(*ast.Term) error) error {
	for ; i < len(rc.segs); i++ {
		sg := rc.segs[i]
		key := sg.key
		if key == nil {
			if key = f[sg.slot]; key == nil {
				return rc.iterate(f, v, i, k)
			}
		}
		if v = index(v, key); v == nil {
			return nil
		}
	}
	return k(v)
}

// iterate binds segment i's variable to each key of v in turn.
func (rc *refCode) iterate(f frame, v *ast.Term, i int, k func(*ast.Term) error) error {
	slot := rc.segs[i].slot
	bind := func(key, elem *ast.Term) error {
		f[slot] = key
		err := rc.walkFrom(f, elem, i+1, k)
		f[slot] = nil
		return err
	}
	switch c := v.Value.(type) {
	case ast.Object:
		return c.Iter(bind)
	case *ast.Array:
		for j := 0; j < c.Len(); j++ {
			if err := bind(ast.InternedTerm(j), c.Elem(j)); err != nil {
				return err
			}
		}
	case ast.Set:
		return c.Iter(func(e *ast.Term) error { return bind(e, e) })
	}
	return nil
}

// index is v[key] as a reference reads it: nil when undefined.
func index(v, key *ast.Term) *ast.Term {
	switch c := v.Value.(type) {
	case ast.Object:
		return c.Get(key)
	case *ast.Array:
		n, ok := key.Value.(ast.Number)
		if !ok {
			return nil
		}
		i, ok := n.Int()
		if !ok || i < 0 || i >= c.Len() {
			return nil
		}
		return c.Elem(i)
	case ast.Set:
		if c.Contains(key) {
			return key
		}
	}
	return nil
}

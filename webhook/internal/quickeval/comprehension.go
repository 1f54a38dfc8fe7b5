package quickeval

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

type comprKind uint8

const (
	cArray comprKind = iota
	cSet
	cObject
)

// comprehension is a compiled comprehension; its body runs in the frame of
// the rule it is in.
type comprehension struct {
	kind      comprKind
	head, val *term // val: an object comprehension's value (head its key)
	body      []step
}

func (sc *scope) comprehension(kind comprKind, body ast.Body, head, val *ast.Term, bound varSet) (*term, error) {
	inner := bound.clone()
	steps, err := sc.body(body, inner)
	if err != nil {
		return nil, err
	}
	c := &comprehension{kind: kind, body: steps}
	if c.head, err = sc.plainOrRef(head, inner); err != nil {
		return nil, err
	}
	if val != nil {
		if c.val, err = sc.plainOrRef(val, inner); err != nil {
			return nil, err
		}
	}
	return &term{kind: kCompr, compr: c}, nil
}

// plainOrRef compiles a comprehension's or rule's head term.
func (sc *scope) plainOrRef(t *ast.Term, bound varSet) (*term, error) {
	ct, err := sc.term(t, bound)
	if err != nil {
		return nil, err
	}
	if ct.kind == kRef {
		return nil, unsupported("reference %v in a head", t)
	}
	return ct, nil
}

// value evaluates the comprehension in frame f.
func (c *comprehension) value(s *state, f frame) (*ast.Term, error) {
	switch c.kind {
	case cArray:
		var elems []*ast.Term
		err := evalBody(s, f, c.body, func() error {
			v, err := c.head.plug(s, f)
			if err != nil || v == nil {
				return orUnbound(err)
			}
			elems = append(elems, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return ast.ArrayTerm(elems...), nil
	case cSet:
		set := ast.NewSet()
		err := evalBody(s, f, c.body, func() error { return addPlugged(s, f, c.head, set) })
		if err != nil {
			return nil, err
		}
		return ast.NewTerm(set), nil
	default:
		obj := ast.NewObject()
		err := evalBody(s, f, c.body, func() error {
			k, err := c.head.plug(s, f)
			if err != nil || k == nil {
				return orUnbound(err)
			}
			v, err := c.val.plug(s, f)
			if err != nil || v == nil {
				return orUnbound(err)
			}
			if old := obj.Get(k); old != nil && !equal(old, v) {
				return errConflict
			}
			obj.Insert(k, v) // of equal values (1 and 1.0), OPA keeps the last
			return nil
		})
		if err != nil {
			return nil, err
		}
		return ast.NewTerm(obj), nil
	}
}

package quickeval

import (
	"context"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
)

// compilation is the state of one Compile.
type compilation struct {
	ctx       context.Context
	compiler  *ast.Compiler
	store     storage.Store
	txn       storage.Transaction
	nodes     map[*ast.TreeNode]*node
	functions map[*ast.TreeNode]*function
	nnodes    int
}

// term compiles t, whose variables in bound are bound.
func (sc *scope) term(t *ast.Term, bound varSet) (*term, error) {
	switch v := t.Value.(type) {
	case ast.Var:
		return &term{kind: kVar, slot: sc.slot(v)}, nil
	case ast.Null, ast.Boolean, ast.Number, ast.String:
		return &term{kind: kConst, val: t}, nil
	case ast.Ref:
		rc, err := sc.ref(v, bound)
		if err != nil {
			return nil, err
		}
		return &term{kind: kRef, ref: rc}, nil
	case *ast.ArrayComprehension:
		return sc.comprehension(cArray, v.Body, v.Term, nil, bound)
	case *ast.SetComprehension:
		return sc.comprehension(cSet, v.Body, v.Term, nil, bound)
	case *ast.ObjectComprehension:
		return sc.comprehension(cObject, v.Body, v.Key, v.Value, bound)
	}
	if t.IsGround() {
		return &term{kind: kConst, val: t}, nil
	}
	switch v := t.Value.(type) {
	case *ast.Array:
		ct := &term{kind: kArray}
		for i := 0; i < v.Len(); i++ {
			e, err := sc.plain(v.Elem(i), bound)
			if err != nil {
				return nil, err
			}
			ct.elems = append(ct.elems, e)
		}
		return ct, nil
	case ast.Set:
		ct := &term{kind: kSet}
		for _, x := range v.Slice() {
			e, err := sc.plain(x, bound)
			if err != nil {
				return nil, err
			}
			ct.elems = append(ct.elems, e)
		}
		return ct, nil
	case ast.Object:
		ct := &term{kind: kObject}
		for _, k := range v.Keys() {
			kt, err := sc.plain(k, bound)
			if err != nil {
				return nil, err
			}
			if kt.kind != kConst && kt.kind != kVar {
				return nil, unsupported("object key %v", k)
			}
			vt, err := sc.plain(v.Get(k), bound)
			if err != nil {
				return nil, err
			}
			ct.keys, ct.elems = append(ct.keys, kt), append(ct.elems, vt)
		}
		return ct, nil
	}
	return nil, unsupported("term %v", t)
}

// plain compiles a term inside a composite: variables, constants and
// composites of them (compiled bodies take references, calls and
// comprehensions out of composites).
func (sc *scope) plain(t *ast.Term, bound varSet) (*term, error) {
	switch t.Value.(type) {
	case ast.Ref, *ast.ArrayComprehension, *ast.SetComprehension, *ast.ObjectComprehension, ast.Call:
		return nil, unsupported("%v inside a composite", t)
	}
	return sc.term(t, bound)
}

// ref compiles a reference.
func (sc *scope) ref(ref ast.Ref, bound varSet) (*refCode, error) {
	var rc *refCode
	var rest ast.Ref
	switch head := ref[0].Value.(type) {
	case ast.Var:
		switch {
		case ref[0].Equal(ast.InputRootDocument):
			rc, rest = &refCode{root: rInput}, ref[1:]
		case ref[0].Equal(ast.DefaultRootDocument):
			var err error
			if rc, rest, err = sc.c.dataRoot(ref); err != nil {
				return nil, err
			}
		default:
			if _, ok := bound[head]; !ok {
				return nil, unsupported("reference %v with an unbound root", ref)
			}
			rc, rest = &refCode{root: rVar, slot: sc.slot(head)}, ref[1:]
		}
	default:
		return nil, unsupported("reference %v", ref)
	}
	for _, k := range rest {
		switch v := k.Value.(type) {
		case ast.Var:
			rc.segs = append(rc.segs, seg{slot: sc.slot(v)})
		default:
			if !k.IsGround() {
				return nil, unsupported("reference %v: key %v", ref, k)
			}
			rc.segs = append(rc.segs, seg{key: k})
		}
	}
	return rc, nil
}

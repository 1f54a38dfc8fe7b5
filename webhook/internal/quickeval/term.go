package quickeval

import (
	"github.com/open-policy-agent/opa/v1/ast"
)

type termKind uint8

const (
	kConst  termKind = iota // a ground value
	kVar                    // a variable's slot
	kRef                    // a reference, which may iterate
	kArray                  // an array with variables
	kObject                 // an object with variables (keys too, when plugged)
	kSet                    // a set with variables (plugged, never matched)
	kCompr                  // a comprehension
)

// term is a compiled term.
type term struct {
	kind  termKind
	val   *ast.Term // kConst
	slot  int       // kVar
	ref   *refCode
	keys  []*term // kObject
	elems []*term // kArray, kSet, kObject's values
	compr *comprehension
}

func isFalse(t *ast.Term) bool {
	b, ok := t.Value.(ast.Boolean)
	return ok && !bool(b)
}

func equal(a, b *ast.Term) bool {
	if a == b {
		return true
	}
	if x, ok := a.Value.(ast.String); ok {
		y, ok := b.Value.(ast.String)
		return ok && x == y
	}
	return a.Value.Compare(b.Value) == 0
}

// plug returns t's single value, or nil when it is undefined (a reference
// that reaches nothing). A variable t holds must be bound, and a reference
// must not iterate (its variables bound).
func (t *term) plug(s *state, f frame) (*ast.Term, error) {
	switch t.kind {
	case kConst:
		return t.val, nil
	case kVar:
		if v := f[t.slot]; v != nil {
			return v, nil
		}
		return nil, errUnbound
	case kRef:
		return t.ref.lookup(s, f)
	case kCompr:
		return t.compr.value(s, f)
	case kArray:
		elems := make([]*ast.Term, len(t.elems))
		for i, e := range t.elems {
			v, err := e.plug(s, f)
			if v == nil || err != nil {
				return nil, orUnbound(err)
			}
			elems[i] = v
		}
		return ast.ArrayTerm(elems...), nil
	case kSet:
		set := ast.NewSet()
		for _, e := range t.elems {
			v, err := e.plug(s, f)
			if v == nil || err != nil {
				return nil, orUnbound(err)
			}
			set.Add(v)
		}
		return ast.NewTerm(set), nil
	default: // kObject
		obj := ast.NewObject()
		for i, k := range t.keys {
			kv, err := k.plug(s, f)
			if kv == nil || err != nil {
				return nil, orUnbound(err)
			}
			vv, err := t.elems[i].plug(s, f)
			if vv == nil || err != nil {
				return nil, orUnbound(err)
			}
			if old := obj.Get(kv); old != nil && !equal(old, vv) {
				return nil, errConflict
			}
			obj.Insert(kv, vv)
		}
		return ast.NewTerm(obj), nil
	}
}

// orUnbound is err, or errUnbound for a composite with an undefined part
// (compiled bodies take references out of composites, so it does not
// happen; should it, OPA answers).
func orUnbound(err error) error {
	if err != nil {
		return err
	}
	return errUnbound
}

// eval calls k with each of t's values: a reference iterates over its
// unbound variables, binding them.
func (t *term) eval(s *state, f frame, k func(*ast.Term) error) error {
	if t.kind == kRef && !t.ref.ground(f) {
		return t.ref.walk(s, f, k)
	}
	v, err := t.plug(s, f)
	if err != nil || v == nil {
		return err
	}
	return k(v)
}

// single reports whether t has one value at most in f (it does not
// iterate), which plug returns.
func (t *term) single(f frame) bool {
	return t.kind != kRef || t.ref.ground(f)
}

// matchNext unifies pattern t with v and goes on with the body's next
// step: match, without a closure for the common patterns (a constant, a
// variable).
func (t *term) matchNext(r *run, i int, v *ast.Term) error {
	switch t.kind {
	case kConst:
		if equal(t.val, v) {
			return r.next(i + 1)
		}
		return nil
	case kVar:
		if old := r.f[t.slot]; old != nil {
			if equal(old, v) {
				return r.next(i + 1)
			}
			return nil
		}
		r.f[t.slot] = v
		err := r.next(i + 1)
		r.f[t.slot] = nil
		return err
	}
	return t.match(r.s, r.f, v, func() error { return r.next(i + 1) })
}

// match unifies pattern t with the ground value v, binding t's unbound
// variables, and calls k for the match.
func (t *term) match(s *state, f frame, v *ast.Term, k func() error) error {
	switch t.kind {
	case kConst:
		if equal(t.val, v) {
			return k()
		}
		return nil
	case kVar:
		if old := f[t.slot]; old != nil {
			if equal(old, v) {
				return k()
			}
			return nil
		}
		f[t.slot] = v
		err := k()
		f[t.slot] = nil
		return err
	case kArray:
		arr, ok := v.Value.(*ast.Array)
		if !ok || arr.Len() != len(t.elems) {
			return nil
		}
		return matchArray(s, f, t.elems, arr, 0, k)
	case kObject:
		obj, ok := v.Value.(ast.Object)
		if !ok {
			return nil
		}
		// The pattern's keys are plugged first: two that come out equal
		// are left to OPA, and the object must have exactly the others.
		keys := make([]*ast.Term, len(t.keys))
		for i, kt := range t.keys {
			key, err := kt.plug(s, f)
			if err != nil || key == nil {
				return orUnbound(err)
			}
			for _, prev := range keys[:i] {
				if equal(prev, key) {
					return errConflict
				}
			}
			keys[i] = key
		}
		if obj.Len() != len(keys) {
			return nil
		}
		return matchObject(s, f, t, keys, obj, 0, k)
	case kSet:
		// A set with unbound variables is not unified (the compiler
		// refuses it); with its variables bound it is a value.
		sv, err := t.plug(s, f)
		if err != nil || sv == nil {
			return orUnbound(err)
		}
		if equal(sv, v) {
			return k()
		}
		return nil
	default: // kRef, kCompr: values
		return t.eval(s, f, func(x *ast.Term) error {
			if equal(x, v) {
				return k()
			}
			return nil
		})
	}
}

func matchArray(s *state, f frame, elems []*term, arr *ast.Array, i int, k func() error) error {
	if i == len(elems) {
		return k()
	}
	return elems[i].match(s, f, arr.Elem(i), func() error { return matchArray(s, f, elems, arr, i+1, k) })
}

func matchObject(s *state, f frame, t *term, keys []*ast.Term, obj ast.Object, i int, k func() error) error {
	if i == len(keys) {
		return k()
	}
	v := obj.Get(keys[i])
	if v == nil {
		return nil
	}
	return t.elems[i].match(s, f, v, func() error { return matchObject(s, f, t, keys, obj, i+1, k) })
}

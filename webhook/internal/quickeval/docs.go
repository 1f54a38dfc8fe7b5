package quickeval

import (
	"errors"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
)

// node is a compiled virtual document: the rules at one path of the rule
// tree, and the documents under it.
type node struct {
	id       int
	complete []*rule // top rules, each with its else chain
	def      *ast.Term
	set      []*rule // contains rules: elements
	object   []*rule // p[k] = v rules: entries
	children []child
	mixed    bool // object rules and children (see node)
}

func emptyCollection(t *ast.Term) bool {
	switch c := t.Value.(type) {
	case ast.Object:
		return c.Len() == 0
	case ast.Set:
		return c.Len() == 0
	case *ast.Array:
		return c.Len() == 0
	}
	return false
}

type child struct {
	key *ast.Term
	n   *node
}

// rule is one compiled rule (or else branch).
type rule struct {
	nslots int
	body   []step
	key    *term   // a set element, or an object key
	value  *term   // a value
	args   []*term // a function's arguments, as patterns
	els    *rule
}

var errRecursion = errors.New("quickeval: recursion")

// value evaluates the document once per evaluation: nil is undefined.
func (n *node) value(s *state) (*ast.Term, error) {
	m := &s.docs[n.id]
	if m.done {
		return m.val, nil
	}
	if m.busy {
		return nil, errRecursion
	}
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	m.busy = true
	v, err := n.eval(s)
	if err != nil {
		return nil, err
	}
	m.busy, m.done, m.val = false, true, v
	return v, nil
}

func (n *node) eval(s *state) (*ast.Term, error) {
	switch {
	case len(n.complete) > 0 || n.def != nil:
		var val *ast.Term
		for _, top := range n.complete {
			if err := chainValue(s, top, &val, func(r *rule, k func(frame) error) error { return r.solve(s, k) }); err != nil {
				return nil, err
			}
		}
		if val == nil {
			val = n.def
		}
		return val, nil
	case len(n.set) > 0:
		set := ast.NewSet()
		for _, r := range n.set {
			err := r.solve(s, func(f frame) error { return addPlugged(s, f, r.key, set) })
			if err != nil {
				return nil, err
			}
		}
		return ast.NewTerm(set), nil
	}
	obj := ast.NewObject()
	for _, c := range n.children {
		v, err := c.n.value(s)
		if err != nil {
			return nil, err
		}
		if n.mixed && v != nil && emptyCollection(v) {
			return nil, errConflict
		}
		if v != nil {
			obj.Insert(c.key, v)
		}
	}
	for _, r := range n.object {
		err := r.solve(s, func(f frame) error {
			k, err := r.key.plug(s, f)
			if err != nil || k == nil {
				return orUnbound(err)
			}
			v, err := r.value.plug(s, f)
			if err != nil || v == nil {
				return orUnbound(err)
			}
			if old := obj.Get(k); old != nil {
				if !equal(old, v) {
					return errConflict
				}
				return nil
			}
			obj.Insert(k, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ast.NewTerm(obj), nil
}

// chainValue evaluates the else chain from top, each branch's solutions
// found by solve, into *val: the first of equal values (OPA keeps the
// first of 1 and 1.0), a conflict for a different one. It stops at the
// first branch with a solution.
func chainValue(s *state, top *rule, val **ast.Term, solve func(r *rule, k func(frame) error) error) error {
	for r := top; r != nil; r = r.els {
		got := false
		err := solve(r, func(f frame) error {
			v, err := r.value.plug(s, f)
			if err != nil || v == nil {
				return orUnbound(err)
			}
			got = true
			if *val == nil {
				*val = v
			} else if !equal(*val, v) {
				return errConflict
			}
			return nil
		})
		if err != nil || got {
			return err
		}
	}
	return nil
}

// addPlugged adds t's value in f to set.
func addPlugged(s *state, f frame, t *term, set ast.Set) error {
	v, err := t.plug(s, f)
	if err != nil || v == nil {
		return orUnbound(err)
	}
	set.Add(v)
	return nil
}

// solve calls k with the frame of each solution of r's body.
func (r *rule) solve(s *state, k func(frame) error) error {
	return s.runBody(s.frame(r.nslots), r.body, nil, k)
}

// dataRoot compiles the start of a reference into data: the virtual
// document its ground prefix reaches (rules), or the base data there,
// read now. It returns the keys that follow.
func (c *compilation) dataRoot(ref ast.Ref) (*refCode, ast.Ref, error) {
	top := c.compiler.RuleTree.Child(ast.DefaultRootDocument.Value)
	if top == nil {
		top = &ast.TreeNode{}
	}
	tn := top
	i := 1
	for ; i < len(ref) && len(tn.Values) == 0; i++ {
		if !ref[i].IsGround() {
			break
		}
		ch := tn.Child(ref[i].Value)
		if ch == nil {
			break
		}
		tn = ch
	}
	virtual := tn != top && (len(tn.Values) > 0 || i == len(ref) || !ref[i].IsGround())
	if !virtual {
		// Base data: the longest ground prefix is read now.
		j := i
		for j < len(ref) && ref[j].IsGround() {
			j++
		}
		if j == 1 {
			return nil, nil, unsupported("reference %v to all data", ref)
		}
		val, err := c.read(ref[:j])
		if err != nil {
			return nil, nil, err
		}
		return &refCode{root: rConst, val: val}, ref[j:], nil
	}
	if base, err := c.read(ref[:i]); err != nil || base != nil {
		return nil, nil, unsupported("reference %v to rules and base data", ref)
	}
	n, err := c.node(tn)
	if err != nil {
		return nil, nil, err
	}
	return &refCode{root: rDoc, doc: n}, ref[i:], nil
}

// read returns the base data at ref (nil: none).
func (c *compilation) read(ref ast.Ref) (*ast.Term, error) {
	path, err := storage.NewPathForRef(ref)
	if err != nil {
		return nil, unsupported("reference %v into data: %v", ref, err)
	}
	v, err := c.store.Read(c.ctx, c.txn, path)
	if storage.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	av, ok := v.(ast.Value)
	if !ok {
		if av, err = ast.InterfaceToValue(v); err != nil {
			return nil, err
		}
	}
	return ast.NewTerm(av), nil
}

// node compiles the virtual document of rule tree node tn.
func (c *compilation) node(tn *ast.TreeNode) (*node, error) {
	if n, ok := c.nodes[tn]; ok {
		return n, nil
	}
	if tn.Hide || tn.External != nil {
		return nil, unsupported("document %v", tn.Key)
	}
	n := &node{id: c.nnodes}
	c.nnodes++
	c.nodes[tn] = n
	for _, r := range tn.Values {
		if len(r.Head.Args) > 0 {
			return nil, unsupported("function %v used as a document", r.Head.Ref())
		}
		if r.Default {
			if !r.Head.Value.IsGround() {
				return nil, unsupported("default %v", r.Head.Ref())
			}
			n.def = r.Head.Value
			continue
		}
		ref := r.Head.Ref()
		switch {
		case r.Head.RuleKind() == ast.MultiValue && ref.IsGround():
			cr, err := c.rule(r, nil)
			if err != nil {
				return nil, err
			}
			n.set = append(n.set, cr)
		case ref.IsGround():
			cr, err := c.rule(r, nil)
			if err != nil {
				return nil, err
			}
			n.complete = append(n.complete, cr)
		case len(ref.DynamicSuffix()) == 1 && r.Head.RuleKind() == ast.SingleValue:
			cr, err := c.rule(r, ref[len(ref)-1])
			if err != nil {
				return nil, err
			}
			n.object = append(n.object, cr)
		default:
			return nil, unsupported("rule %v", ref)
		}
	}
	for _, k := range tn.Sorted {
		// OPA finds a child by its exact key (1.0 is not 1), an object
		// by its value: only string keys are compiled.
		if _, ok := k.(ast.String); !ok {
			return nil, unsupported("document %v under a key that is not a string", k)
		}
		cn, err := c.node(tn.Children[k])
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, child{key: ast.NewTerm(k), n: cn})
	}
	kinds := 0
	for _, has := range []bool{len(n.complete) > 0 || n.def != nil, len(n.set) > 0, len(n.object) > 0 || len(n.children) > 0} {
		if has {
			kinds++
		}
	}
	if kinds > 1 {
		return nil, unsupported("document %v of rules of several kinds", tn.Key)
	}
	// OPA builds a document with p[k] rules of its own and children from
	// the defined values of its rules alone, leaving out its children's
	// empty collections and defaults: such a document is compiled only
	// when each child is complete rules without a default, and an
	// evaluation where one of them is an empty collection is left to OPA.
	if n.mixed = len(n.object) > 0 && len(n.children) > 0; n.mixed {
		for _, ch := range n.children {
			if cn := ch.n; len(cn.complete) == 0 || cn.def != nil || len(cn.set) > 0 || len(cn.object) > 0 || len(cn.children) > 0 {
				return nil, unsupported("document %v: p[k] rules beside %v", tn.Key, ch.key)
			}
		}
	}
	return n, nil
}

// rule compiles r and its else chain; key is the variable key of an
// object rule (p[k] = v), nil for others.
func (c *compilation) rule(r *ast.Rule, key *ast.Term) (*rule, error) {
	sc := &scope{c: c, slots: map[ast.Var]int{}}
	bound := varSet{}
	cr := &rule{}
	for _, a := range r.Head.Args {
		ct, err := sc.term(a, bound)
		if err != nil {
			return nil, err
		}
		if ct.kind == kRef || ct.kind == kCompr {
			return nil, unsupported("function argument %v", a)
		}
		cr.args = append(cr.args, ct)
	}
	bound.bindVars(r.Head.Args)
	steps, err := sc.body(r.Body, bound)
	if err != nil {
		return nil, err
	}
	cr.body = steps
	switch {
	case r.Head.RuleKind() == ast.MultiValue:
		if cr.key, err = sc.plainOrRef(r.Head.Key, bound); err != nil {
			return nil, err
		}
	default:
		if key != nil {
			if cr.key, err = sc.plainOrRef(key, bound); err != nil {
				return nil, err
			}
		}
		if cr.value, err = sc.plainOrRef(r.Head.Value, bound); err != nil {
			return nil, err
		}
	}
	if r.Else != nil {
		if r.Head.RuleKind() == ast.MultiValue || key != nil {
			return nil, unsupported("else on %v", r.Head.Ref())
		}
		if cr.els, err = c.rule(r.Else, nil); err != nil {
			return nil, err
		}
		if len(cr.els.args) != len(cr.args) {
			return nil, unsupported("else of %v without the function's arguments", r.Head.Ref())
		}
	}
	cr.nslots = len(sc.slots)
	return cr, nil
}

package catalogue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// configRef is where the policy data is served.
var configRef = ast.MustParseRef("data.sluice.config")

// path is a policy data key, split; "*" stands for a key known only at
// evaluation (a namespace, a kind).
type path []string

func (p path) String() string { return strings.Join(p, ".") }

// keysOf returns the policy data keys a rule reads, in its body and in
// the rules and functions it calls.
func (w *walker) keysOf(r *ast.Rule) []path {
	_, keys := w.eval(r, nil)
	return keys
}

// eval walks a rule's definition with its parameters bound to the
// arguments of a call (nil: none known): the data its value is, if it is
// a piece of the policy data (config, guard_list(name)), and every key it
// reads.
func (w *walker) eval(r *ast.Rule, args []*ast.Term) (path, []path) {
	memo := fmt.Sprintf("%p%v", r, args)
	if keys, ok := w.keys[memo]; ok {
		value, _ := w.values[memo]
		return value, keys
	}
	w.keys[memo] = nil // the rules of a bundle do not recurse; this stops a loop
	var value path
	var keys []path
	for _, d := range definitions(r) {
		s := &scope{w: w, env: map[ast.Var]path{}, bound: map[ast.Var]*ast.Term{}}
		for i, p := range d.Head.Args {
			if v, ok := p.Value.(ast.Var); ok && i < len(args) && args[i] != nil {
				s.bound[v] = args[i]
			}
		}
		s.body(d.Body)
		if value == nil && d.Head.Value != nil {
			value, _ = s.pathOf(d.Head.Value)
		}
		keys = append(keys, s.keys...)
	}
	w.keys[memo], w.values[memo] = keys, value
	return value, keys
}

// scope is one walk of a body: the data each variable holds, the scalar
// arguments bound to the parameters, and the keys read.
type scope struct {
	w     *walker
	env   map[ast.Var]path
	bound map[ast.Var]*ast.Term
	keys  []path
}

func (s *scope) body(b ast.Body) {
	ast.WalkExprs(b, func(e *ast.Expr) bool {
		s.expr(e)
		return false
	})
}

func (s *scope) expr(e *ast.Expr) {
	switch {
	case e.IsEquality() || e.IsAssignment():
		a, b := e.Operand(0), e.Operand(1)
		s.refs(a)
		s.refs(b)
		if v, ok := a.Value.(ast.Var); ok {
			if p, ok := s.pathOf(b); ok {
				s.env[v] = p
			}
		}
	case e.IsCall():
		ops := e.Operands()
		for _, op := range ops {
			s.refs(op)
		}
		s.call(e.Operator(), ops)
	default:
		for _, t := range termsOf(e) {
			s.refs(t)
		}
	}
}

// call follows a call: a function of the bundle is walked with its
// scalar arguments bound; object.get reads a key of the data it is given.
func (s *scope) call(op ast.Ref, ops []*ast.Term) {
	out, _ := ops[len(ops)-1].Value.(ast.Var)
	if op.Equal(ast.ObjectGet.Ref()) && len(ops) == 4 {
		if p, ok := s.pathOf(ops[0]); ok {
			p = slices.Clone(p)
			if keys, ok := ops[1].Value.(*ast.Array); ok { // object.get(x, ["a", "b"], d)
				keys.Foreach(func(k *ast.Term) { p = append(p, s.segment(k)) })
			} else {
				p = append(p, s.segment(ops[1]))
			}
			s.read(out, p)
		}
		return
	}
	fns := s.w.c.GetRulesExact(op)
	if len(fns) == 0 {
		return
	}
	args := make([]*ast.Term, len(ops))
	for i, a := range ops {
		if t := s.scalar(a); t != nil {
			args[i] = t
		}
	}
	for _, fn := range fns {
		value, keys := s.w.eval(fn, args)
		s.keys = append(s.keys, keys...)
		if value != nil && len(ops) == len(fn.Head.Args)+1 {
			s.read(out, value)
		}
	}
}

// read records a key read, held by out if it is a variable.
func (s *scope) read(out ast.Var, p path) {
	s.keys = append(s.keys, p)
	if out != "" {
		s.env[out] = p
	}
}

// refs records the keys of every ref in t and walks the rules they name.
func (s *scope) refs(t *ast.Term) {
	ast.WalkRefs(t, func(ref ast.Ref) bool {
		if p, ok := s.refPath(ref); ok {
			s.keys = append(s.keys, p)
		}
		if rs, _ := s.w.rulesOf(ref); len(rs) > 0 && !ref.HasPrefix(configRef) {
			for _, r := range rs {
				if len(r.Head.Args) == 0 {
					_, keys := s.w.eval(r, nil)
					s.keys = append(s.keys, keys...)
				}
			}
		}
		return false
	})
}

// pathOf is the policy data a term holds, if it is a piece of it.
func (s *scope) pathOf(t *ast.Term) (path, bool) {
	switch v := t.Value.(type) {
	case ast.Var:
		p, ok := s.env[v]
		return p, ok
	case ast.Ref:
		return s.refPath(v)
	}
	return nil, false
}

func (s *scope) refPath(ref ast.Ref) (path, bool) {
	var base path
	var rest ast.Ref
	switch {
	case ref.HasPrefix(configRef):
		base, rest = path{}, ref[len(configRef):]
	case ref[0].Value.Compare(ast.DefaultRootDocument.Value) == 0:
		rs, below := s.w.rulesOf(ref)
		if len(rs) != 1 || len(rs[0].Head.Args) > 0 {
			return nil, false
		}
		value, _ := s.w.eval(rs[0], nil)
		if value == nil {
			return nil, false
		}
		base, rest = value, below
	default:
		v, ok := ref[0].Value.(ast.Var)
		if !ok {
			return nil, false
		}
		p, ok := s.env[v]
		if !ok {
			return nil, false
		}
		base, rest = p, ref[1:]
	}
	out := slices.Clone(base)
	for _, t := range rest {
		out = append(out, s.segment(t))
	}
	return out, true
}

// segment is a key of a ref or object.get: a string, or a parameter
// bound to one; "*" for a key known only at evaluation.
func (s *scope) segment(t *ast.Term) string {
	if sc := s.scalar(t); sc != nil {
		if str, ok := sc.Value.(ast.String); ok {
			return string(str)
		}
	}
	return "*"
}

// scalar is t as a string, number or boolean, through the bound
// parameters.
func (s *scope) scalar(t *ast.Term) *ast.Term {
	if v, ok := t.Value.(ast.Var); ok {
		t = s.bound[v]
		if t == nil {
			return nil
		}
	}
	switch t.Value.(type) {
	case ast.String, ast.Number, ast.Boolean:
		return t
	}
	return nil
}

func termsOf(e *ast.Expr) []*ast.Term {
	switch t := e.Terms.(type) {
	case *ast.Term:
		return []*ast.Term{t}
	case []*ast.Term:
		return t
	}
	return nil
}

// keyStrings are the keys as the catalogue lists them: sorted, without
// the ones that lead to a longer key read too, cut at the items of a list
// (data holds the lists: mutating.affinity.preferred, not
// mutating.affinity.preferred.*.weight), and without their trailing "*".
func keyStrings(keys []path, data map[string]any) []string {
	var out []string
	for _, k := range keys {
		k = cutAtList(k, data)
		for len(k) > 0 && k[len(k)-1] == "*" {
			k = k[:len(k)-1]
		}
		if len(k) == 0 {
			continue
		}
		out = append(out, k.String())
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(slices.Clone(out), func(k string) bool {
		return slices.ContainsFunc(out, func(o string) bool { return strings.HasPrefix(o, k+".") })
	})
}

// cutAtList cuts p before the first "*" that indexes a list of data.
func cutAtList(p path, data map[string]any) path {
	var at any = data
	for i, seg := range p {
		switch v := at.(type) {
		case []any:
			if seg == "*" {
				return p[:i]
			}
			return p
		case map[string]any:
			at = v[seg]
		default:
			return p
		}
	}
	return p
}

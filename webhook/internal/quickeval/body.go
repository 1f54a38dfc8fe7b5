package quickeval

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// scope numbers the variables of one rule (its head, body, negations and
// comprehensions share a frame; the compiler made their names unique).
type scope struct {
	c     *compilation
	slots map[ast.Var]int
}

func (sc *scope) slot(v ast.Var) int {
	if i, ok := sc.slots[v]; ok {
		return i
	}
	i := len(sc.slots)
	sc.slots[v] = i
	return i
}

// varSet is the variables bound at a point of a body.
type varSet map[ast.Var]struct{}

func (b varSet) clone() varSet {
	c := make(varSet, len(b))
	for v := range b {
		c[v] = struct{}{}
	}
	return c
}

// bindVars adds the variables x binds (outside its closures).
func (b varSet) bindVars(x any) {
	vis := ast.NewVarVisitor().WithParams(ast.VarVisitorParams{SkipClosures: true})
	vis.Walk(x)
	for v := range vis.Vars() {
		b[v] = struct{}{}
	}
}

func unsupported(format string, args ...any) error {
	return fmt.Errorf("quickeval: not compiled: "+format, args...)
}

// body compiles a body whose variables in bound are bound on entry.
func (sc *scope) body(body ast.Body, bound varSet) ([]step, error) {
	steps := make([]step, 0, len(body))
	for _, e := range body {
		st, err := sc.expr(e, bound)
		if err != nil {
			return nil, err
		}
		if st != nil {
			steps = append(steps, st)
		}
	}
	return steps, nil
}

func (sc *scope) expr(e *ast.Expr, bound varSet) (step, error) {
	if len(e.With) > 0 {
		return nil, unsupported("with: %v", e)
	}
	if e.Negated {
		inner := e.Copy()
		inner.Negated = false
		st, err := sc.expr(inner, bound.clone())
		if err != nil {
			return nil, err
		}
		steps := []step{st}
		// OPA looks for every solution of a negated expression, not the
		// first alone (an error in a later one fails its evaluation), and
		// so do the closures.
		return func(r *run, i int) error {
			found := false
			err := evalBody(r.s, r.f, steps, func() error { found = true; return nil })
			if err != nil || found {
				return err
			}
			return r.next(i + 1)
		}, nil
	}
	var st step
	var err error
	switch t := e.Terms.(type) {
	case *ast.SomeDecl:
		for _, sym := range t.Symbols {
			if _, ok := sym.Value.(ast.Var); !ok {
				return nil, unsupported("some … in: %v", e)
			}
		}
		return nil, nil
	case *ast.Every:
		st, err = sc.every(t, bound)
	case *ast.Term:
		st, err = sc.termExpr(t, bound)
	case []*ast.Term:
		st, err = sc.call(e, t, bound)
	default:
		return nil, unsupported("expression %v", e)
	}
	if err != nil {
		return nil, err
	}
	bound.bindVars(e)
	return st, nil
}

func stopAtFirst() error { return errFound }

// termExpr holds for each value of t that is not false.
func (sc *scope) termExpr(t *ast.Term, bound varSet) (step, error) {
	ct, err := sc.term(t, bound)
	if err != nil {
		return nil, err
	}
	if ct.kind == kVar {
		if _, ok := bound[t.Value.(ast.Var)]; !ok {
			return nil, unsupported("unbound variable as an expression: %v", t)
		}
	}
	return func(r *run, i int) error {
		if ct.single(r.f) {
			v, err := ct.plug(r.s, r.f)
			if err != nil || v == nil || isFalse(v) {
				return err
			}
			return r.next(i + 1)
		}
		return ct.eval(r.s, r.f, func(v *ast.Term) error {
			if isFalse(v) {
				return nil
			}
			return r.next(i + 1)
		})
	}, nil
}

func (sc *scope) call(e *ast.Expr, terms []*ast.Term, bound varSet) (step, error) {
	op := e.Operator()
	if op == nil {
		return nil, unsupported("call %v", e)
	}
	args := terms[1:]
	name := op.String()
	if name == ast.Equality.Name || name == ast.Assign.Name {
		return sc.unify(args[0], args[1], bound)
	}
	if op[0].Equal(ast.DefaultRootDocument) {
		fn, err := sc.c.function(op)
		if err != nil {
			return nil, err
		}
		return sc.callWith(args, fn.arity, bound, func(s *state, ops []*ast.Term) (*ast.Term, []*ast.Term, error) {
			v, err := fn.call(s, ops)
			return v, nil, err
		}, false)
	}
	decl, ok := ast.BuiltinMap[name]
	bi := topdown.GetBuiltin(name)
	if !ok || bi == nil || !callable(decl) {
		return nil, unsupported("built-in %s", name)
	}
	arity := decl.Decl.Arity()
	void := decl.Decl.Result() == nil
	if void && len(args) != arity {
		return nil, unsupported("call %v", e)
	}
	return sc.callWith(args, arity, bound, func(s *state, ops []*ast.Term) (*ast.Term, []*ast.Term, error) {
		s.outs = s.outs[:0]
		if len(args) > arity {
			ops = append(ops, outVar)
		}
		if err := bi(s.bctx, ops, s.collect); err != nil {
			return nil, nil, err
		}
		switch len(s.outs) {
		case 0:
			return nil, nil, nil
		case 1:
			return s.outs[0], nil, nil
		}
		return nil, append([]*ast.Term(nil), s.outs...), nil
	}, void)
}

// outVar stands for a call's output operand, as OPA passes it.
var outVar = ast.VarTerm("__quickeval_out__")

// callable reports whether a built-in may be called outside OPA's
// evaluator: deterministic, and needing nothing of the evaluation but
// its context (no printing, tracing, rule metadata or runtime).
func callable(b *ast.Builtin) bool {
	if b.Nondeterministic || b.Relation {
		return false
	}
	switch b.Name {
	case "print", "internal.print", "trace", "opa.runtime", "rego.metadata.chain", "rego.metadata.rule",
		"internal.test_case", "rego.parse_module", "eval_builtin_error":
		return false
	}
	return true
}

// callFn calls a function or built-in with ops: its one output, or its
// several (built-ins may have several), or none.
type callFn func(s *state, ops []*ast.Term) (*ast.Term, []*ast.Term, error)

// callWith compiles a call of arity arguments whose outputs f emits: with
// an output argument, each output is unified with it; without one, the
// call holds for each output that is not false (a void built-in's each).
func (sc *scope) callWith(args []*ast.Term, arity int, bound varSet, f callFn, void bool) (step, error) {
	if len(args) < arity || len(args) > arity+1 {
		return nil, unsupported("call with %d arguments, want %d", len(args), arity)
	}
	in := make([]*term, arity)
	for j, a := range args[:arity] {
		ct, err := sc.term(a, bound)
		if err != nil {
			return nil, err
		}
		if !groundable(ct, a, bound) {
			return nil, unsupported("argument %v is not bound", a)
		}
		in[j] = ct
	}
	var out *term
	if len(args) > arity {
		ct, err := sc.term(args[arity], bound)
		if err != nil {
			return nil, err
		}
		out = ct
	}
	return func(r *run, i int) error {
		ops := r.s.frame(arity + 1)[:arity]
		for j, a := range in {
			v, err := a.plug(r.s, r.f)
			if err != nil || v == nil {
				return err
			}
			ops[j] = v
		}
		one, more, err := f(r.s, ops)
		if err != nil {
			return err
		}
		emit := func(v *ast.Term) error {
			switch {
			case out != nil:
				return out.matchNext(r, i, v)
			case void || !isFalse(v):
				return r.next(i + 1)
			}
			return nil
		}
		if one != nil {
			return emit(one)
		}
		for _, v := range more {
			if err := emit(v); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// unify compiles a = b: a side that gives values (constants, bound
// variables, references, comprehensions) is evaluated, and the other side
// is compared with, or as a pattern unified with, each value.
func (sc *scope) unify(a, b *ast.Term, bound varSet) (step, error) {
	ca, err := sc.term(a, bound)
	if err != nil {
		return nil, err
	}
	cb, err := sc.term(b, bound)
	if err != nil {
		return nil, err
	}
	ga, gb := groundable(ca, a, bound), groundable(cb, b, bound)
	switch {
	case !ga && !gb:
		return nil, unsupported("unification of two patterns: %v = %v", a, b)
	case !ga:
		ca, cb = cb, ca
	}
	// ca gives values; cb is matched against each.
	return func(r *run, i int) error {
		if ca.single(r.f) {
			v, err := ca.plug(r.s, r.f)
			if err != nil || v == nil {
				return err
			}
			return cb.matchNext(r, i, v)
		}
		return ca.eval(r.s, r.f, func(v *ast.Term) error { return cb.matchNext(r, i, v) })
	}, nil
}

// groundable reports whether compiled term ct (of t) gives values where
// the variables in bound are bound: it is not a pattern to unify.
func groundable(ct *term, t *ast.Term, bound varSet) bool {
	switch ct.kind {
	case kConst, kRef, kCompr:
		return true
	}
	vis := ast.NewVarVisitor().WithParams(ast.VarVisitorParams{SkipClosures: true})
	vis.Walk(t)
	for v := range vis.Vars() {
		if _, ok := bound[v]; !ok {
			return false
		}
	}
	return true
}

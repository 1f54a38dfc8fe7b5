package quickeval

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Program is a query compiled to closures. It is safe for concurrent use.
type Program struct {
	root   *node // the queried document
	nnodes int   // documents to remember per evaluation
}

// Compile compiles the document query refers to (a ground reference into
// data, such as a residual's result rule) from compiler's rules and
// store's data. It fails on anything this package does not compile (see
// the package comment); the caller then evaluates the query with OPA.
func Compile(ctx context.Context, compiler *ast.Compiler, store storage.Store, query ast.Ref) (p *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("compiling %v: %v", query, r)
		}
	}()
	if !query.IsGround() || !query[0].Equal(ast.DefaultRootDocument) {
		return nil, fmt.Errorf("query %v is not a ground reference into data", query)
	}
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	c := &compilation{ctx: ctx, compiler: compiler, store: store, txn: txn,
		nodes: map[*ast.TreeNode]*node{}, functions: map[*ast.TreeNode]*function{}}
	root, rest, err := c.dataRoot(query)
	if err != nil {
		return nil, err
	}
	if root.root != rDoc || len(rest) > 0 {
		return nil, fmt.Errorf("query %v is not a rule", query)
	}
	return &Program{root: root.doc, nnodes: c.nnodes}, nil
}

// Eval evaluates the query for input. An error means the program could not
// answer as OPA would (see the package comment): the caller evaluates the
// query with OPA instead. An undefined query is an error too.
func (p *Program) Eval(ctx context.Context, input ast.Value) (v ast.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("quickeval: %v", r)
		}
	}()
	s := states.Get().(*state)
	s.reset(ctx, input, p.nnodes)
	t, err := p.root.value(s)
	// Only a state whose evaluation returned goes back to the pool (a
	// panic leaves it as it was).
	s.release()
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errUndefined
	}
	return t.Value, nil
}

// states keeps evaluation states, with their memory for frames and
// runs, from one evaluation to the next.
var states = sync.Pool{New: func() any {
	s := &state{}
	s.collect = s.onOutput
	return s
}}

func (s *state) reset(ctx context.Context, input ast.Value, ndocs int) {
	s.ctx, s.input = ctx, ast.NewTerm(input)
	if cap(s.docs) < ndocs {
		s.docs = make([]docMemo, ndocs)
	}
	s.docs = s.docs[:ndocs]
	s.bctx = topdown.BuiltinContext{Context: ctx}
}

// release clears what the evaluation left and returns s to the pool.
func (s *state) release() {
	clear(s.docs)
	clear(s.slab[:s.used])
	clear(s.outs)
	s.ctx, s.input, s.used, s.outs = nil, nil, 0, s.outs[:0]
	s.bctx = topdown.BuiltinContext{}
	states.Put(s)
}

// slabSize is the variable slots taken from the Go heap at once.
const slabSize = 512

// frame returns n cleared slots: a rule body's variables or a call's
// operands, which live as long as the evaluation (they are not reused
// within it).
func (s *state) frame(n int) frame {
	if s.used+n > len(s.slab) {
		s.slab, s.used = make([]*ast.Term, max(slabSize, n)), 0
	}
	f := s.slab[s.used : s.used+n : s.used+n]
	s.used += n
	return f
}

var (
	errUndefined = errors.New("quickeval: undefined")
	errConflict  = errors.New("quickeval: conflicting values")
	errUnbound   = errors.New("quickeval: unbound variable")
	errFound     = errors.New("quickeval: found") // stops a negation's search
)

// state is one evaluation's.
type state struct {
	ctx   context.Context
	input *ast.Term
	docs  []docMemo
	bctx  topdown.BuiltinContext
	// slab holds frames (frame), runs the runs not in use (evalBody).
	slab []*ast.Term
	used int
	runs []*run
	// outs collects a built-in's outputs through collect (s.onOutput, one
	// method value per evaluation); they are copied before evaluation
	// goes on, which may call other built-ins.
	outs    []*ast.Term
	collect func(*ast.Term) error
}

func (s *state) onOutput(t *ast.Term) error {
	s.outs = append(s.outs, t)
	return nil
}

// docMemo is a document's value in one evaluation.
type docMemo struct {
	done, busy bool
	val        *ast.Term // nil: undefined
}

// frame holds a rule body's variables, by slot.
type frame []*ast.Term

// run is one evaluation of a body: each step calls r.next(i+1) for each of
// its solutions, and the last calls k (or kf with the frame).
type run struct {
	s     *state
	f     frame
	steps []step
	k     func() error
	kf    func(frame) error
}

type step func(r *run, i int) error

func (r *run) next(i int) error {
	if i == len(r.steps) {
		if r.kf != nil {
			return r.kf(r.f)
		}
		return r.k()
	}
	return r.steps[i](r, i)
}

// evalBody calls k for each solution of steps, in frame f.
func evalBody(s *state, f frame, steps []step, k func() error) error {
	return s.runBody(f, steps, k, nil)
}

// runBody evaluates steps in frame f with a run of s's: runs are taken
// and given back in nested order, each in use until its body is done.
func (s *state) runBody(f frame, steps []step, k func() error, kf func(frame) error) error {
	var r *run
	if n := len(s.runs); n > 0 {
		r, s.runs = s.runs[n-1], s.runs[:n-1]
	} else {
		r = &run{s: s}
	}
	r.f, r.steps, r.k, r.kf = f, steps, k, kf
	err := r.next(0)
	r.f, r.steps, r.k, r.kf = nil, nil, nil, nil
	s.runs = append(s.runs, r)
	return err
}

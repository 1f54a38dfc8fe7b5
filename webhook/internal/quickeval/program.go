package quickeval

import (
	"context"
	"errors"
	"fmt"

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
	s := &state{ctx: ctx, input: ast.NewTerm(input), docs: make([]docMemo, p.nnodes)}
	s.bctx = topdown.BuiltinContext{Context: ctx}
	s.collect = s.onOutput
	t, err := p.root.value(s)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errUndefined
	}
	return t.Value, nil
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
// its solutions, and the last calls k.
type run struct {
	s     *state
	f     frame
	steps []step
	k     func() error
}

type step func(r *run, i int) error

func (r *run) next(i int) error {
	if i == len(r.steps) {
		return r.k()
	}
	return r.steps[i](r, i)
}

// evalBody calls k for each solution of steps, in frame f.
func evalBody(s *state, f frame, steps []step, k func() error) error {
	r := &run{s: s, f: f, steps: steps, k: k}
	return r.next(0)
}

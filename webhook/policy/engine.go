package policy

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
)

// ErrNotReady is returned by Engine.Eval before a bundle has compiled.
var ErrNotReady = errors.New("policies are not compiled yet")

// Engine holds the active compiled bundle. Load compiles a new bundle and
// swaps it in only if it compiles, so the last good policy set stays active.
type Engine struct {
	queries    []string
	specialise *bool // nil: queries are not specialised
	quick      QuickMode
	active     atomic.Pointer[Compiled]
	generation atomic.Uint64
}

// NewEngine returns an engine that prepares the given queries.
func NewEngine(queries ...string) *Engine { return &Engine{queries: queries} }

// Specialising makes the engine specialise its queries by input class
// (webhook/internal/specialise), which pays off for an engine that
// evaluates many inputs. Without it every input uses the general query.
// The webhook's builds a class's query in the background and evaluates
// with the general query meanwhile; with wait, a class's first evaluation
// waits for it instead, so that every evaluation uses it (fixture tests).
// It returns e.
func (e *Engine) Specialising(wait bool) *Engine {
	e.specialise = &wait
	return e
}

// Load compiles b and, on success, makes it the active bundle. On failure
// the previous bundle stays active and the error says what did not compile.
func (e *Engine) Load(ctx context.Context, b *Bundle) error {
	c, err := compile(ctx, b, e.specialise, e.quick, e.queries)
	if err != nil {
		return err
	}
	c.generation = e.generation.Add(1)
	e.active.Store(c)
	return nil
}

// Ready reports whether a bundle is active.
func (e *Engine) Ready() bool { return e.active.Load() != nil }

// Active returns the active compiled bundle, or nil.
func (e *Engine) Active() *Compiled { return e.active.Load() }

// Eval evaluates query against the active bundle.
func (e *Engine) Eval(ctx context.Context, query string, input ast.Value) (ast.Value, error) {
	c := e.active.Load()
	if c == nil {
		return nil, ErrNotReady
	}
	return c.Eval(ctx, query, input)
}

package policy

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/internal/opalock"
	"github.com/sluice-data/sluice/webhook/internal/residual"
	"github.com/sluice-data/sluice/webhook/internal/specialise"
)

// Compiled is a bundle compiled into prepared queries, ready to evaluate.
// Its bundle and queries are fixed; a specialising one adds queries for
// input classes as they appear (webhook/internal/specialise). It is safe for concurrent use.
type Compiled struct {
	bundle  *Bundle
	queries map[string]*prepared
	// generation numbers compiled bundles in an Engine; 0 outside one.
	generation uint64
	// deterministic is true when equal inputs always give equal results.
	deterministic bool
	// enforcement is the bundle's enforcement section, checked.
	enforcement *enforcement.Policy
	// quick says how the queries compiled to closures are used (quick.go).
	quick QuickMode
}

// CompileError says which modules failed to compile and why.
type CompileError struct {
	// Errors are the compiler's messages, each naming its module and line.
	Errors []string
}

func (e *CompileError) Error() string {
	return "policy bundle does not compile: " + strings.Join(e.Errors, "; ")
}

var parserOptions = ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true}

// ParseModules parses the bundle's modules (and, with tests, its test
// modules) as Rego v1.
func ParseModules(b *Bundle, tests bool) (map[string]*ast.Module, error) {
	parsed := map[string]*ast.Module{}
	var errs []string
	add := func(src map[string]string) {
		for id, text := range src {
			m, err := ast.ParseModuleWithOpts(id, text, parserOptions)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s (%s): %v", id, b.Sources[id], err))
				continue
			}
			parsed[id] = m
		}
	}
	add(b.Modules)
	if tests {
		add(b.Tests)
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, &CompileError{Errors: errs}
	}
	return parsed, nil
}

// NewStore returns an in-memory store serving the bundle's data as
// data.sluice.config.
func NewStore(b *Bundle) storage.Store {
	return inmem.NewFromObjectWithOpts(map[string]any{"sluice": map[string]any{"config": b.Data}},
		inmem.OptRoundTripOnWrite(true), inmem.OptReturnASTValuesOnRead(true))
}

// Compile compiles the bundle and prepares each query once. It fails, and
// nothing changes for the caller, if any module does not parse or compile or
// a query does not prepare.
func Compile(ctx context.Context, b *Bundle, queries ...string) (*Compiled, error) {
	return compile(ctx, b, nil, QuickOn, queries)
}

// CompileModules parses and compiles the bundle's modules (not its tests)
// as the webhook does, and returns the compiler, for the callers that read
// the compiled rules (the rule catalogue), and the parsed modules.
func CompileModules(b *Bundle) (*ast.Compiler, map[string]*ast.Module, error) {
	modules, err := ParseModules(b, false)
	if err != nil {
		return nil, nil, err
	}
	compiler := ast.NewCompiler().WithEnablePrintStatements(false).WithCapabilities(capabilities())
	_ = opalock.Do(func() error { compiler.Compile(modules); return nil })
	if compiler.Failed() {
		errs := make([]string, 0, len(compiler.Errors))
		for _, e := range compiler.Errors {
			src := ""
			if e.Location != nil {
				src = " (" + b.Sources[e.Location.File] + ")"
			}
			errs = append(errs, e.Error()+src)
		}
		return nil, nil, &CompileError{Errors: errs}
	}
	return compiler, modules, nil
}

// compile is Compile that, with spec set, also specialises each query by
// input class (webhook/internal/specialise); *spec says whether a class's
// first evaluation waits for its query. quick says how the queries
// compiled to closures are used.
func compile(ctx context.Context, b *Bundle, spec *bool, quick QuickMode, queries []string) (*Compiled, error) {
	compiler, modules, err := CompileModules(b)
	if err != nil {
		return nil, err
	}
	enforced, err := enforcementOf(b, modules)
	if err != nil {
		return nil, err
	}
	store := NewStore(b)
	c := &Compiled{bundle: b, queries: map[string]*prepared{}, deterministic: deterministic(compiler), enforcement: enforced, quick: quick}
	// With QuickOff no query, general or specialised, is compiled to
	// closures.
	noClosures := quick == QuickOff
	for i, q := range queries {
		rq := residual.Query{Query: q, Namespace: preparedNamespace(i), Modules: modules, Compiler: compiler, Store: store, NoClosures: noClosures}
		// One partial evaluation serves the general query and the
		// specialiser; should it fail, the query is prepared as written
		// and not specialised.
		_ = opalock.Do(func() (err error) {
			rq.Residual, err = residual.Partial(ctx, rq)
			return err
		})
		var sp *specialise.Specialiser
		if spec != nil {
			sp = specialise.New(specialise.Config{Query: q, Residual: rq.Residual, Modules: modules, Compiler: compiler, Store: store, Wait: *spec, NoClosures: noClosures})
		}
		pq, err := prepare(ctx, rq)
		if err != nil {
			return nil, &CompileError{Errors: []string{fmt.Sprintf("query %s: %v", q, err)}}
		}
		p := &prepared{general: pq, spec: sp}
		p.answered, p.byOPA = quickCounters(q)
		c.queries[q] = p
		if !noClosures {
			quickCompiled(q, pq)
		}
	}
	return c, nil
}

// Generation identifies the compiled bundle within its Engine.
func (c *Compiled) Generation() uint64 { return c.generation }

// Deterministic reports whether equal inputs always give equal results, so
// that decisions may be memoised.
func (c *Compiled) Deterministic() bool { return c.deterministic }

// Enforcement returns the bundle's enforcement section (modes and
// exceptions), which the pipelines apply to every decision.
func (c *Compiled) Enforcement() *enforcement.Policy { return c.enforcement }

// Data returns the policy data of the compiled bundle (data.sluice.config).
// Callers must not modify it.
func (c *Compiled) Data() map[string]any { return c.bundle.Data }

// Bundle returns the bundle c was compiled from.
func (c *Compiled) Bundle() *Bundle { return c.bundle }

// EvalError is a failure while evaluating a policy query.
type EvalError struct {
	Query string
	Err   error
}

func (e *EvalError) Error() string { return fmt.Sprintf("evaluating policy %s: %v", e.Query, e.Err) }

func (e *EvalError) Unwrap() error { return e.Err }

// Eval evaluates a prepared query with input and returns its single value,
// as the evaluator produced it (sets unsorted; callers that need an order
// sort them). An undefined result is an error: every Sluice entrypoint
// always has a value.
func (c *Compiled) Eval(ctx context.Context, query string, input ast.Value) (ast.Value, error) {
	p, ok := c.queries[query]
	if !ok {
		return nil, &EvalError{Query: query, Err: fmt.Errorf("query was not prepared")}
	}
	pq := p.general
	if p.spec != nil {
		special, ok, err := p.spec.ForInput(ctx, input)
		if err != nil {
			return nil, &EvalError{Query: query, Err: fmt.Errorf("specialising the query: %w", err)}
		}
		if ok {
			pq = special
		}
	}
	if c.quick != QuickOff && pq.Quick != nil {
		return c.evalQuick(ctx, query, p, pq, input)
	}
	return evalOPA(ctx, query, pq.Query, input)
}

// evalOPA evaluates pq with OPA's evaluator.
func evalOPA(ctx context.Context, query string, pq rego.PreparedEvalQuery, input ast.Value) (ast.Value, error) {
	// Cancel evaluation with the context without OPA's per-evaluation
	// goroutine: context.AfterFunc runs only if the context ends.
	cancel := topdown.NewCancel()
	stop := context.AfterFunc(ctx, cancel.Cancel)
	defer stop()
	vc := newVirtualCache()
	defer vc.release()
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input), rego.EvalExternalCancel(cancel), rego.EvalGenerateJSON(keepValue),
		rego.EvalMetrics(noMetrics), rego.EvalVirtualCache(vc))
	if err != nil {
		return nil, &EvalError{Query: query, Err: err}
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, &EvalError{Query: query, Err: fmt.Errorf("undefined or ambiguous result (%d results)", len(rs))}
	}
	return rs[0].Expressions[0].Value.(ast.Value), nil
}

// SpecialiseErrors returns why the specialised queries of query that could
// not be built failed (their input classes use the general query), for
// the classes seen so far, waiting for the builds under way; none when the
// query is not specialised.
func (c *Compiled) SpecialiseErrors(ctx context.Context, query string) ([]error, error) {
	p, ok := c.queries[query]
	if !ok || p.spec == nil {
		return nil, nil
	}
	return p.spec.Errors(ctx)
}

// prepared is a query prepared for evaluation: the general query, and the
// Specialiser of its residual, if it has one.
type prepared struct {
	general residual.Prepared
	spec    *specialise.Specialiser
	// answered and byOPA count the evaluations the closures answered and
	// those left to OPA (sluice_policy_quick_evaluations_total).
	answered, byOPA prometheus.Counter
}

// noMetrics spares each evaluation OPA's own timers and counters, which
// nothing reads (the webhook measures evaluations itself:
// metrics.PolicyEvalDuration).
var noMetrics = metrics.NoOp()

// keepValue stands in for the conversion of results to Go values: the
// decoders read Rego values directly.
func keepValue(t *ast.Term, _ *rego.EvalContext) (any, error) { return t.Value, nil }

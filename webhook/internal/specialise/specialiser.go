package specialise

import (
	"context"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/sluice-data/sluice/webhook/internal/opalock"
	"github.com/sluice-data/sluice/webhook/internal/residual"
	"github.com/sluice-data/sluice/webhook/metrics"
)

const (
	// maxProbes bounds the input values a residual is specialised on, and
	// maxConsts the constants each is compared with (a class is a byte per
	// value, in a fixed-size key); a residual with more is not specialised.
	maxProbes = 16
	maxConsts = 250
	// maxVariants bounds the specialised queries kept per query (each holds
	// a compiled copy of the bundle, about 1 MiB for the default one);
	// inputs of further classes use the general query.
	maxVariants = 16
	// specialisedNamespace is where the rules of a specialised query live.
	specialisedNamespace = "sluice_specialised"
)

// parserOptions parse the module that wraps a specialised query, as
// webhook/policy parses a bundle's modules.
var parserOptions = ast.ParserOptions{RegoVersion: ast.RegoV1}

// Specialiser builds, on first use, and keeps the specialised queries of
// one prepared query, one per input class (see the package comment).
type Specialiser struct {
	name    string        // the query, for metrics
	query   ast.Body      // the residual query, binding residual.ResultVar
	support []*ast.Module // the residual's rules
	modules map[string]*ast.Module
	store   storage.Store
	// capabilities are the bundle compiler's, for a class's compilation.
	capabilities *ast.Capabilities
	probes       []probe
	// wait makes a class's first evaluation wait for its query to be built.
	wait bool
	// noClosures builds the classes' queries for OPA alone.
	noClosures bool
	// limit is the number of classes that get a specialised query.
	limit int

	mu       sync.Mutex
	variants map[classKey]*variant
}

// variant is the specialised query of one input class. It is built in the
// background; until done is closed the class uses the general query.
type variant struct {
	done chan struct{}
	pq   residual.Prepared
	err  error
}

// Config is what a Specialiser is made from: a query of a compiled bundle.
type Config struct {
	// Query is the query as written (data.sluice.mutating.decision); it
	// names the Specialiser's builds in metrics.
	Query string
	// Residual is the query's partial evaluation (residual.Partial, whose
	// namespace is one name), which the general query is prepared from
	// too. It is read, never changed.
	Residual *rego.PartialQueries
	// Modules are the bundle's parsed modules, and Compiler the compiler
	// they were compiled with: a class's query is compiled with its
	// capabilities.
	Modules  map[string]*ast.Module
	Compiler *ast.Compiler
	// Store serves the bundle's data.
	Store storage.Store
	// Wait makes a class's first evaluation wait for its query to be built
	// instead of using the general query meanwhile (fixture tests).
	Wait bool
	// NoClosures builds the classes' queries for OPA alone, not compiled
	// to closures (residual.Query.NoClosures).
	NoClosures bool
}

// New returns the Specialiser of the query whose residual cfg holds, or nil
// when there is none, or it has nothing to specialise on or a shape this
// does not handle: then the general query serves every input.
func New(cfg Config) *Specialiser {
	pqs := cfg.Residual
	if pqs == nil || rebindsInput(cfg.Modules) || len(pqs.Queries) != 1 {
		return nil
	}
	probes := findProbes(pqs.Queries[0], pqs.Support)
	if len(probes) == 0 || len(probes) > maxProbes {
		return nil
	}
	for _, p := range probes {
		if len(p.consts) > maxConsts {
			return nil
		}
	}
	return &Specialiser{name: cfg.Query, query: pqs.Queries[0], support: pqs.Support, modules: cfg.Modules, store: cfg.Store,
		capabilities: cfg.Compiler.Capabilities(), probes: probes, wait: cfg.Wait, noClosures: cfg.NoClosures, limit: maxVariants, variants: map[classKey]*variant{}}
}

// ForInput returns the specialised query for input's class, or false when
// input is to use the general query: when limit classes have been seen
// already, when building the class's query failed (a second partial
// evaluation can fail where the general query does not, for example on
// an object whose rules conflict once their conditions are decided, in a
// part of the policy the input never reaches), and, unless the Specialiser
// waits, while it is being built (a class's first input starts the build,
// which takes tens of milliseconds).
func (s *Specialiser) ForInput(ctx context.Context, input ast.Value) (residual.Prepared, bool, error) {
	v := s.variant(classOf(s.probes, input))
	if v == nil {
		return residual.Prepared{}, false, nil
	}
	if s.wait {
		select {
		case <-v.done:
		case <-ctx.Done():
			return residual.Prepared{}, false, ctx.Err()
		}
	}
	select {
	case <-v.done:
		return v.pq, v.err == nil, nil
	default:
		return residual.Prepared{}, false, nil
	}
}

// Errors returns why the queries of the classes seen so far that could not
// be built failed (those classes use the general query), waiting for the
// builds under way.
func (s *Specialiser) Errors(ctx context.Context) ([]error, error) {
	s.mu.Lock()
	variants := make([]*variant, 0, len(s.variants))
	for _, v := range s.variants {
		variants = append(variants, v)
	}
	s.mu.Unlock()
	var errs []error
	for _, v := range variants {
		select {
		case <-v.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if v.err != nil {
			errs = append(errs, v.err)
		}
	}
	return errs, nil
}

// variant returns the variant of class key, starting its build if it is
// new, or nil when limit classes have been seen already.
func (s *Specialiser) variant(key classKey) *variant {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.variants[key]
	if !ok && len(s.variants) < s.limit {
		v = &variant{done: make(chan struct{})}
		s.variants[key] = v
		go func() {
			defer close(v.done)
			v.pq, v.err = s.buildSafely(key)
			result := "ok"
			if v.err != nil {
				result = "error"
			}
			metrics.SpecialisedQueries.WithLabelValues(s.name, result).Inc()
		}()
	}
	return v
}

// buildSafely is build with a panic in OPA turned into an error: it runs on
// a goroutine of its own, where a panic would end the process.
func (s *Specialiser) buildSafely(key classKey) (pq residual.Prepared, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return s.build(context.Background(), key)
}

// build compiles the bundle's modules with the residual decided for class
// key and partially evaluates it again (webhook/internal/residual, as the
// general query is prepared).
func (s *Specialiser) build(ctx context.Context, key classKey) (residual.Prepared, error) {
	modules := make(map[string]*ast.Module, len(s.modules)+len(s.support)+1)
	for id, m := range s.modules {
		modules[id] = m
	}
	support := make([]*ast.Module, len(s.support))
	for i, m := range s.support {
		m = m.Copy()
		decide(m, s.probes, key)
		dropFalseRules(m)
		support[i] = m
		modules[fmt.Sprintf("sluice:residual/%d", i)] = m
	}
	bindObjectKeys(support)
	resultModule, err := ast.ParseModuleWithOpts("sluice:result",
		"package "+specialisedNamespace+"_result\nresult := "+residual.ResultVar+" if "+residual.ResultVar+" := true", parserOptions)
	if err != nil {
		return residual.Prepared{}, err
	}
	body := s.query.Copy()
	decide(body, s.probes, key)
	resultModule.Rules[0].Body = body
	modules["sluice:result"] = resultModule
	var pq residual.Prepared
	// A bundle load waiting for the lock goes first: builds queue up when
	// many classes arrive at once, and the load serves every admission.
	err = opalock.Background(func() error {
		compiler := ast.NewCompiler().WithEnablePrintStatements(false).WithCapabilities(s.capabilities)
		if compiler.Compile(modules); compiler.Failed() {
			return compiler.Errors
		}
		var err error
		pq, err = residual.Prepare(ctx, residual.Query{Query: "data." + specialisedNamespace + "_result.result",
			Namespace: specialisedNamespace, Modules: modules, Compiler: compiler, Store: s.store, NoClosures: s.noClosures})
		return err
	})
	return pq, err
}

package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"

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
	// resultVar is the variable the residual query binds to its value.
	resultVar = "sluice_result"
)

// specializer builds, on first use, and keeps the specialised queries of
// one prepared query, one per input class (see specialize.go).
type specializer struct {
	name    string        // the query, for metrics
	query   ast.Body      // the residual query, binding resultVar
	support []*ast.Module // the residual's rules
	modules map[string]*ast.Module
	store   storage.Store
	probes  []probe
	// wait makes a class's first evaluation wait for its query to be built.
	wait bool
	// limit is the number of classes that get a specialised query.
	limit int

	mu       sync.Mutex
	variants map[classKey]*variant
}

// variant is the specialised query of one input class. It is built in the
// background; until done is closed the class uses the general query.
type variant struct {
	done chan struct{}
	pq   rego.PreparedEvalQuery
	err  error
}

// newSpecializer partially evaluates query q (the i-th of its bundle) and
// returns its specializer, or nil when the residual has nothing to
// specialise on or a shape this does not handle: then the general query
// serves every input.
func newSpecializer(ctx context.Context, q string, i int, wait bool, modules map[string]*ast.Module, compiler *ast.Compiler, store storage.Store) *specializer {
	if rebindsInput(modules) {
		return nil
	}
	ns := preparedNamespace(i)
	var pqs *rego.PartialQueries
	err := withOPALock(func() (err error) {
		pqs, err = rego.New(rego.Query(resultVar+" = "+q), rego.PartialNamespace(ns), rego.Compiler(compiler), rego.Store(store),
			rego.StrictBuiltinErrors(true)).Partial(ctx)
		return err
	})
	if err != nil || len(pqs.Queries) != 1 {
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
	return &specializer{name: q, query: pqs.Queries[0], support: pqs.Support, modules: modules, store: store,
		probes: probes, wait: wait, limit: maxVariants, variants: map[classKey]*variant{}}
}

// forInput returns the specialised query for input's class, or false when
// input is to use the general query: when limit classes have been seen
// already, when building the class's query failed (a second partial
// evaluation can fail where the general query does not, for example on
// an object whose rules conflict once their conditions are decided, in a
// part of the policy the input never reaches), and, unless the specializer
// waits, while it is being built (a class's first input starts the build,
// which takes tens of milliseconds).
func (s *specializer) forInput(ctx context.Context, input ast.Value) (rego.PreparedEvalQuery, bool, error) {
	v := s.variant(classOf(s.probes, input))
	if v == nil {
		return rego.PreparedEvalQuery{}, false, nil
	}
	if s.wait {
		select {
		case <-v.done:
		case <-ctx.Done():
			return rego.PreparedEvalQuery{}, false, ctx.Err()
		}
	}
	select {
	case <-v.done:
		return v.pq, v.err == nil, nil
	default:
		return rego.PreparedEvalQuery{}, false, nil
	}
}

// variant returns the variant of class key, starting its build if it is
// new, or nil when limit classes have been seen already.
func (s *specializer) variant(key classKey) *variant {
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
func (s *specializer) buildSafely(key classKey) (pq rego.PreparedEvalQuery, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return s.build(context.Background(), key)
}

// build compiles the bundle's modules with the residual decided for class
// key and partially evaluates it again.
func (s *specializer) build(ctx context.Context, key classKey) (rego.PreparedEvalQuery, error) {
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
		"package "+specialisedNamespace+"_result\nresult := "+resultVar+" if "+resultVar+" := true", parserOptions)
	if err != nil {
		return rego.PreparedEvalQuery{}, err
	}
	body := s.query.Copy()
	decide(body, s.probes, key)
	resultModule.Rules[0].Body = body
	modules["sluice:result"] = resultModule
	var pq rego.PreparedEvalQuery
	err = withOPALock(func() error {
		compiler := ast.NewCompiler().WithEnablePrintStatements(false)
		if compiler.Compile(modules); compiler.Failed() {
			return compiler.Errors
		}
		pr, err := rego.New(rego.Query("data."+specialisedNamespace+"_result.result"), rego.PartialNamespace(specialisedNamespace),
			rego.Compiler(compiler), rego.Store(s.store), rego.StrictBuiltinErrors(true)).PartialResult(ctx)
		if err != nil {
			return err
		}
		pq, err = pr.Rego(rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
		return err
	})
	return pq, err
}

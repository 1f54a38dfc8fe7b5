package residual

import (
	"context"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"

	"github.com/sluice-data/sluice/webhook/internal/quickeval"
)

// ResultVar is the variable a residual query binds to the query's value.
const ResultVar = "sluice_residual_result"

// Query is a query of a compiled bundle to prepare from its residual.
type Query struct {
	// Query is a reference to the value wanted (data.sluice.mutating.decision).
	Query string
	// Namespace is a package, unused by the bundle, for the residual's
	// rules: one name, without dots; its query's rule goes into the
	// package Namespace+"_query".
	Namespace string
	// Modules are the modules Compiler compiled; the residual is compiled
	// with them, by a compiler of the same capabilities, leaving Compiler
	// as it is.
	Modules  map[string]*ast.Module
	Compiler *ast.Compiler
	// Store serves the bundle's data.
	Store storage.Store
	// Residual is Partial's result for this query, when the caller has it
	// already (the specialiser reads the same residual); without it,
	// Compile and Prepare partially evaluate the query themselves. It is
	// read, never changed.
	Residual *rego.PartialQueries
	// NoClosures leaves Prepared.Quick nil: the query is not compiled to
	// closures (an engine that evaluates with OPA alone).
	NoClosures bool
}

// Partial partially evaluates q.Query with the input unknown: the residual
// queries bind ResultVar to its value, their support rules are in package
// q.Namespace. The caller holds the lock that serialises OPA's
// compilations (webhook/internal/opalock).
//
// The namespace must be one name: OPA takes a dotted partial namespace as
// one key when a residual is partially evaluated again, as the specialiser
// does, and the residual's default rules then come out twice.
func Partial(ctx context.Context, q Query) (*rego.PartialQueries, error) {
	if !ast.IsVarCompatibleString(q.Namespace) {
		return nil, fmt.Errorf("namespace %q is not one name", q.Namespace)
	}
	return rego.New(rego.Query(ResultVar+" = "+q.Query), rego.PartialNamespace(q.Namespace), rego.Compiler(q.Compiler),
		rego.Store(q.Store), rego.StrictBuiltinErrors(true)).Partial(ctx)
}

// Prepared is a residual query prepared for OPA's evaluator and, where
// webhook/internal/quickeval compiles it, compiled to closures.
type Prepared struct {
	Query rego.PreparedEvalQuery
	// Quick is nil when quickeval does not compile the residual (Why
	// says why); OPA's prepared query then serves every input.
	Quick *quickeval.Program
	Why   error
}

// Prepare partially evaluates q.Query with the input unknown (or takes
// q.Residual), defers the value-only expressions of every residual body
// (Defer), compiles the residual and prepares its query, as
// rego.PartialResult and PrepareForEval would without the deferral, and
// compiles it to closures (webhook/internal/quickeval). The caller holds
// the lock that serialises OPA's compilations (webhook/internal/opalock).
func Prepare(ctx context.Context, q Query) (Prepared, error) {
	compiler, result, err := Compile(ctx, q)
	if err != nil {
		return Prepared{}, err
	}
	pq, err := rego.New(rego.Query(result), rego.Compiler(compiler), rego.Store(q.Store), rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
	if err != nil {
		return Prepared{}, err
	}
	p := Prepared{Query: pq}
	if q.NoClosures {
		p.Why = errors.New("not compiled to closures (NoClosures)")
		return p, nil
	}
	p.Quick, p.Why = quickeval.Compile(ctx, compiler, q.Store, ast.MustParseRef(result))
	return p, nil
}

// Compile partially evaluates q.Query (or takes q.Residual) and compiles
// the residual, its bodies deferred, with q's modules. It returns the
// compiler and the reference whose value is q.Query's: a complete rule
// with a body per residual query (should two give different values, the
// evaluation fails, as it does for rego.PartialResult).
func Compile(ctx context.Context, q Query) (*ast.Compiler, string, error) {
	if !ast.IsVarCompatibleString(q.Namespace) {
		return nil, "", fmt.Errorf("namespace %q is not one name", q.Namespace)
	}
	pqs := q.Residual
	if pqs == nil {
		var err error
		if pqs, err = Partial(ctx, q); err != nil {
			return nil, "", err
		}
	}
	modules, ids, result, err := withResidual(q, pqs)
	if err != nil {
		return nil, "", err
	}
	// Compiling orders each body for safety (a negation after the
	// bindings of its variables, which partial evaluation may have put
	// last, so after the messages) and breaks nested calls out into
	// expressions of their own; the residual's bodies are deferred in that
	// order, in place. Each moved expression stays safe at the end, and
	// the rule indices the compiler built do not depend on the order of a
	// body's expressions. The compiler works on copies: q.Residual is left
	// as it was.
	compiled, err := compile(q, modules)
	if err != nil {
		return nil, "", err
	}
	for _, id := range ids {
		for _, r := range compiled.Modules[id].Rules {
			for e := r; e != nil; e = e.Else {
				e.Body = Defer(e.Body)
			}
		}
	}
	return compiled, result, nil
}

// compile compiles modules with the capabilities of q's compiler.
func compile(q Query, modules map[string]*ast.Module) (*ast.Compiler, error) {
	compiler := ast.NewCompiler().WithEnablePrintStatements(false).WithCapabilities(q.Compiler.Capabilities())
	if compiler.Compile(modules); compiler.Failed() {
		return nil, compiler.Errors
	}
	return compiler, nil
}

// withResidual returns q's modules with the residual pqs added, the ids of
// the residual's modules, and the reference of the rule whose bodies are
// the residual queries.
func withResidual(q Query, pqs *rego.PartialQueries) (map[string]*ast.Module, []string, string, error) {
	pkg := q.Namespace + "_query"
	modules := make(map[string]*ast.Module, len(q.Modules)+len(pqs.Support)+1)
	for id, m := range q.Modules {
		modules[id] = m
	}
	var ids []string
	for i, m := range pqs.Support {
		id := fmt.Sprintf("sluice:%s/support/%d", q.Namespace, i)
		modules[id], ids = m, append(ids, id)
	}
	query, err := ast.ParseModuleWithOpts("sluice:"+pkg, "package "+pkg+"\nresult := "+ResultVar+" if "+ResultVar+" := true",
		ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, nil, "", err
	}
	template := query.Rules[0]
	query.Rules = query.Rules[:0]
	for _, body := range pqs.Queries {
		r := template.Copy()
		r.Body, r.Module = body, query
		query.Rules = append(query.Rules, r)
	}
	if len(query.Rules) == 0 {
		return nil, nil, "", fmt.Errorf("query %s is undefined for every input", q.Query)
	}
	modules["sluice:"+pkg], ids = query, append(ids, "sluice:"+pkg)
	return modules, ids, "data." + pkg + ".result", nil
}

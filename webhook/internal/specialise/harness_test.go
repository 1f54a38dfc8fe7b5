package specialise

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/internal/opalock"
	"github.com/sluice-data/sluice/webhook/internal/quickeval"
	"github.com/sluice-data/sluice/webhook/internal/residual"
)

// The tests of this package compile bundles as webhook/policy does
// (policy.Compile: parse as Rego v1, compile, serve the data as
// data.sluice.config, make the Specialiser, then prepare the general query
// from its residual) and compare the specialised queries with the general
// one, their oracle. The fixture cases check the same through
// policy.Engine.

const q = "data.t.answer"

// bundle is the modules and data of a policy bundle.
type bundle struct {
	modules map[string]string
	data    map[string]any
}

func bundleWith(module string) bundle {
	return bundle{modules: map[string]string{"t.rego": module}, data: map[string]any{}}
}

// defaultBundle is the default policies: every module of policies.FS but
// tests and test data, and data.yaml.
func defaultBundle(t *testing.T) bundle {
	t.Helper()
	b := bundle{modules: map[string]string{}}
	err := fs.WalkDir(policies.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == "testdata" {
				return fs.SkipDir
			}
			return err
		}
		content, err := fs.ReadFile(policies.FS, p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(p, "_test.rego"):
		case path.Ext(p) == ".rego":
			b.modules[p] = string(content)
		case p == policies.DataFile:
			return yaml.Unmarshal(content, &b.data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compiled is a query of a compiled bundle: its general query and, when
// specialising, its Specialiser.
type compiled struct {
	general rego.PreparedEvalQuery
	spec    *Specialiser
	// quick is the general query's residual compiled to closures, as
	// webhook/policy prepares it (webhook/internal/quickeval).
	quick *quickeval.Program
	// unanswered counts the evaluations OPA answered and the closures did
	// not (or that had no closures).
	unanswered int
}

// mustCompile compiles b and prepares query; with wait set it also makes
// the query's Specialiser, which with *wait makes a class's first
// evaluation wait for its query.
func mustCompile(t *testing.T, b bundle, wait *bool, query string) *compiled {
	t.Helper()
	ctx := context.Background()
	modules, compiler, store := compileBundle(t, b)
	const ns = "sluice_prepared_q0"
	c := &compiled{}
	if wait != nil {
		pqs, err := partial(query, ns, compiler, store)
		if err != nil {
			t.Fatal(err)
		}
		c.spec = New(Config{Query: query, Residual: pqs, Modules: modules, Compiler: compiler, Store: store, Wait: *wait})
	}
	err := opalock.Do(func() error {
		pr, err := rego.New(rego.Query(query), rego.PartialNamespace(ns), rego.Compiler(compiler), rego.Store(store),
			rego.StrictBuiltinErrors(true)).PartialResult(ctx)
		if err != nil {
			return err
		}
		if c.general, err = pr.Rego(rego.StrictBuiltinErrors(true)).PrepareForEval(ctx); err != nil {
			return err
		}
		p, err := residual.Prepare(ctx, residual.Query{Query: query, Namespace: ns, Modules: modules, Compiler: compiler, Store: store})
		c.quick = p.Quick
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// partial is query's residual in namespace ns, as webhook/policy makes it
// for the general query and the specialiser.
func partial(query, ns string, compiler *ast.Compiler, store storage.Store) (pqs *rego.PartialQueries, err error) {
	err = opalock.Do(func() (err error) {
		pqs, err = residual.Partial(context.Background(), residual.Query{Query: query, Namespace: ns, Compiler: compiler, Store: store})
		return err
	})
	return pqs, err
}

// compileBundle parses and compiles b's modules and serves its data, as
// webhook/policy does.
func compileBundle(t *testing.T, b bundle) (map[string]*ast.Module, *ast.Compiler, storage.Store) {
	t.Helper()
	modules := map[string]*ast.Module{}
	for id, text := range b.modules {
		m, err := ast.ParseModuleWithOpts(id, text, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			t.Fatal(err)
		}
		modules[id] = m
	}
	compiler := ast.NewCompiler().WithEnablePrintStatements(false)
	_ = opalock.Do(func() error { compiler.Compile(modules); return nil })
	if compiler.Failed() {
		t.Fatal(compiler.Errors)
	}
	store := inmem.NewFromObjectWithOpts(map[string]any{"sluice": map[string]any{"config": b.data}},
		inmem.OptRoundTripOnWrite(true), inmem.OptReturnASTValuesOnRead(true))
	return modules, compiler, store
}

// eval evaluates the query for input as policy.Compiled.Eval does: with
// the query specialised for input's class when there is one.
func (c *compiled) eval(ctx context.Context, input ast.Value) (ast.Value, error) {
	pq, quick := c.general, c.quick
	if c.spec != nil {
		special, ok, err := c.spec.ForInput(ctx, input)
		if err != nil {
			return nil, err
		}
		if ok {
			pq, quick = special.Query, special.Quick
		}
	}
	rs, err := pq.Eval(ctx, rego.EvalParsedInput(input), rego.EvalGenerateJSON(keepValue))
	var v ast.Value
	if err == nil && (len(rs) != 1 || len(rs[0].Expressions) != 1) {
		err = fmt.Errorf("undefined or ambiguous result (%d results)", len(rs))
	}
	if err == nil {
		v = rs[0].Expressions[0].Value.(ast.Value)
	}
	// The query's closures answer as OPA does, or not at all
	// (webhook/internal/quickeval).
	var qerr error
	if quick != nil {
		var got ast.Value
		got, qerr = quick.Eval(ctx, input)
		if qerr == nil && (err != nil || !quickeval.Same(got, v)) {
			return nil, fmt.Errorf("the closures answered %v, OPA %v (error %v)", got, v, err)
		}
	} else {
		qerr = errors.New("not compiled to closures")
	}
	if qerr != nil && err == nil {
		c.unanswered++
	}
	return v, err
}

func keepValue(t *ast.Term, _ *rego.EvalContext) (any, error) { return t.Value, nil }

// outcome is an evaluation's value, or its error.
func outcome(c *compiled, in ast.Value) string {
	v, err := c.eval(context.Background(), in)
	if err != nil {
		return "error: " + err.Error()
	}
	return v.String()
}

package policy

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/sluice-data/sluice/webhook/internal/residual"
)

// countingStore counts the reads evaluations make.
type countingStore struct {
	storage.Store
	reads atomic.Int64
}

func (s *countingStore) Read(ctx context.Context, txn storage.Transaction, path storage.Path) (any, error) {
	s.reads.Add(1)
	return s.Store.Read(ctx, txn, path)
}

const prepareModule = `package t

limit := data.sluice.config.limit

answer contains {"n": n, "w": w.weight} if {
	some w in data.sluice.config.weights
	some n in input.numbers
	n < limit
}`

func compileForTest(t *testing.T) (map[string]*ast.Module, *ast.Compiler, *countingStore) {
	t.Helper()
	b := bundleWith(prepareModule)
	b.Data = map[string]any{"limit": 3, "weights": []any{map[string]any{"weight": 10}, map[string]any{"weight": 20}}}
	modules, err := ParseModules(b, false)
	if err != nil {
		t.Fatal(err)
	}
	c := ast.NewCompiler()
	if c.Compile(modules); c.Failed() {
		t.Fatal(c.Errors)
	}
	return modules, c, &countingStore{Store: NewStore(b)}
}

// The prepared query reads policy data at preparation, not per evaluation,
// and gives the same result as the query evaluated as written.
func TestPrepareFoldsPolicyData(t *testing.T) {
	ctx := context.Background()
	input, err := ast.ValueFromReader(strings.NewReader(`{"numbers": [1, 2, 5]}`))
	if err != nil {
		t.Fatal(err)
	}
	modules, c, store := compileForTest(t)
	pq, err := prepare(ctx, residual.Query{Query: "data.t.answer", Namespace: preparedNamespace(0), Modules: modules, Compiler: c, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	store.reads.Store(0)
	got, err := pq.Query.Eval(ctx, rego.EvalParsedInput(input), rego.EvalSortSets(true))
	if err != nil {
		t.Fatal(err)
	}
	if n := store.reads.Load(); n != 0 {
		t.Errorf("the prepared query read policy data %d times per evaluation, want 0", n)
	}

	_, c2, plain := compileForTest(t)
	want, err := rego.New(rego.Query("data.t.answer"), rego.Compiler(c2), rego.Store(plain), rego.ParsedInput(input)).Eval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if plain.reads.Load() == 0 {
		t.Error("the query as written read no policy data; the test does not test folding")
	}
	if len(got) != 1 || len(want) != 1 || ast.MustInterfaceToValue(got[0].Expressions[0].Value).Compare(ast.MustInterfaceToValue(want[0].Expressions[0].Value)) != 0 {
		t.Errorf("prepared %v, as written %v", got, want)
	}
}

// Nondeterministic builtins stay in the prepared query and run on every
// evaluation; partial evaluation must not fold them into a constant.
func TestPrepareKeepsNondeterministicBuiltins(t *testing.T) {
	ctx := context.Background()
	c, err := Compile(ctx, bundleWith("package t\nanswer := time.now_ns()"), q)
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Eval(ctx, q, ast.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	second, err := c.Eval(ctx, q, ast.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	if first.Compare(second) == 0 {
		t.Errorf("time.now_ns() gave %v twice: it was folded at preparation", first)
	}
}

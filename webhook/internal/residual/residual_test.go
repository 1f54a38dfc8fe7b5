package residual

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

func TestDefer(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		// The message, and the reference formatted into it, after the
		// negation (whose binding comes later: compiling orders that).
		{`input.a[x].fuse; sprintf("%s/%s", [input.a[x].ns, input.a[x].name], ref); sprintf("uses %s", [ref], msg); not y.ok; y = input.a[x]`,
			`input.a[x].fuse; not y.ok; y = input.a[x]; sprintf("%s/%s", [input.a[x].ns, input.a[x].name], ref); sprintf("uses %s", [ref], msg)`},
		// A call whose output a check reads is a check.
		{`concat("/", [input.p, ""], prefix); not startswith(input.q, prefix)`, `concat("/", [input.p, ""], prefix); not startswith(input.q, prefix)`},
		// Checks (no output operand), negations, with and wildcards stay.
		{`startswith(input.a, "x"); is_string(input.b); count(input.c, _); input.d`, `startswith(input.a, "x"); is_string(input.b); count(input.c, _); input.d`},
		{`count(input.c, n) with input as {}; input.d`, `count(input.c, n) with input as {}; input.d`},
		// Already last: nothing moves.
		{`input.d; count(input.c, n)`, `input.d; count(input.c, n)`},
	} {
		body := ast.MustParseBody(c.body)
		got := Defer(body)
		if want := ast.MustParseBody(c.want); !got.Equal(want) {
			t.Errorf("Defer(%v)\n got %v\nwant %v", c.body, got, want)
		}
		for i, e := range got {
			if e.Index != i {
				t.Errorf("Defer(%v): expression %v has index %d, at %d", c.body, e, e.Index, i)
			}
		}
	}
}

// A message that fails to build for values a check excludes: the policy as
// written evaluates the check first and fires nothing. Partial evaluation
// puts the negation last (it reads a variable bound by iteration), so that
// rego.PartialResult's query formats the message first and fails with
// strict builtin errors, for an input the policy admits; Prepare's query
// gives the policy's answer.
func TestPrepareKeepsTheChecksFirst(t *testing.T) {
	const module = `package t
import rego.v1
served(x) if x.phase == "Bound"
deny contains msg if {
	some v in input.volumes
	not served(v)
	msg := sprintf("volume %s: %d", [v.name, to_number(v.size)])
}`
	ctx := context.Background()
	m, err := ast.ParseModuleWithOpts("t.rego", module, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]*ast.Module{"t.rego": m}
	compiler := ast.NewCompiler()
	if compiler.Compile(modules); compiler.Failed() {
		t.Fatal(compiler.Errors)
	}
	store := inmem.New()
	input := ast.MustParseTerm(`{"volumes": [{"name": "a", "phase": "Bound", "size": "not a number"}, {"name": "b", "phase": "Lost", "size": "3"}]}`).Value

	written, err := rego.New(rego.Query("data.t.deny"), rego.Compiler(compiler), rego.Store(store), rego.ParsedInput(input),
		rego.StrictBuiltinErrors(true)).Eval(ctx)
	if err != nil || len(written) != 1 {
		t.Fatalf("the policy as written: %v, %v", written, err)
	}
	want := written[0].Expressions[0].Value

	pr, err := rego.New(rego.Query("data.t.deny"), rego.PartialNamespace("plain"), rego.Compiler(ast.NewCompiler()),
		rego.ParsedModule(m), rego.Store(store), rego.StrictBuiltinErrors(true)).PartialResult(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := pr.Rego(rego.StrictBuiltinErrors(true)).PrepareForEval(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Eval(ctx, rego.EvalParsedInput(input)); err == nil || !strings.Contains(err.Error(), "to_number") {
		t.Errorf("rego.PartialResult's query: %v; the test no longer shows the message formatted first", err)
	}

	pq, err := Prepare(ctx, Query{Query: "data.t.deny", Namespace: "prepared", Modules: modules, Compiler: compiler, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pq.Query.Eval(ctx, rego.EvalParsedInput(input))
	if err != nil || len(got) != 1 {
		t.Fatalf("Prepare's query: %v, %v", got, err)
	}
	w := ast.MustInterfaceToValue(want)
	if g := ast.MustInterfaceToValue(got[0].Expressions[0].Value); g.Compare(w) != 0 {
		t.Errorf("Prepare's query gives %v, the policy as written %v", g, w)
	}
	// Its closures (webhook/internal/quickeval) follow the deferred order too.
	if pq.Quick == nil {
		t.Fatalf("Prepare's query was not compiled to closures: %v", pq.Why)
	}
	g, err := pq.Quick.Eval(ctx, input)
	if err != nil {
		t.Fatalf("Prepare's closures: %v", err)
	}
	// As a Go value, as rego gives it: the set as a list.
	if j, err := ast.JSON(g); err != nil || ast.MustInterfaceToValue(j).Compare(w) != 0 {
		t.Errorf("Prepare's closures give %v (error %v), the policy as written %v", g, err, w)
	}
}

// A dotted namespace is refused (see webhook/policy's preparedNamespace).
func TestPrepareRefusesADottedNamespace(t *testing.T) {
	_, err := Prepare(context.Background(), Query{Query: "data.t.x", Namespace: "a.b", Compiler: ast.NewCompiler(), Store: inmem.New()})
	if err == nil {
		t.Error("a dotted namespace was taken")
	}
}

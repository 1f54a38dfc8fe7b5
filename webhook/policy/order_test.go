package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/internal/opalock"
	"github.com/sluice-data/sluice/webhook/internal/residual"
)

// TestNoMessageIsFormattedBeforeItsChecks enumerates every rule of the
// default policies' residuals as prepare compiles them (each query
// partially evaluated with the input unknown, its bodies deferred, and
// compiled, which orders each body for safety) and fails on a body that
// calls sprintf before a negated expression: the body's rule fires only
// when that check holds, but the message would be formatted first, for
// every value the body iterates over. Partial evaluation produces such
// bodies from rules written the other way round, when the negation reads a
// variable the body binds by iteration (not served(v.dataset)); before
// webhook/internal/residual deferred them, 29 residual bodies of the
// default policies did (12 of the mutating query, 17 of the validating).
func TestNoMessageIsFormattedBeforeItsChecks(t *testing.T) {
	ctx := context.Background()
	b, err := DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	compiler, modules, err := CompileModules(b)
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(b)
	checked := 0
	for i, q := range []string{policies.MutatingQuery, policies.ValidatingQuery} {
		var prepared *ast.Compiler
		err := opalock.Do(func() (err error) {
			prepared, _, err = residual.Compile(ctx, residual.Query{Query: q, Namespace: preparedNamespace(i), Modules: modules,
				Compiler: compiler, Store: store})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for id, m := range prepared.Modules {
			if _, ok := modules[id]; ok {
				continue
			}
			for _, rule := range m.Rules {
				for r := rule; r != nil; r = r.Else {
					checked++
					if expr := checkAfterMessage(r.Body); expr != nil {
						t.Errorf("query %s: rule %s (%v) formats a message before checking %v (%v)\n%v", q, r.Head.Ref(), r.Location, expr, expr.Location, r.Body)
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d residual rules checked", checked)
	}
	t.Logf("%d residual rules checked", checked)
}

// checkAfterMessage returns the first negated expression of body that
// follows a message: the output of a sprintf call that no later
// expression reads (the rule's head does). A sprintf whose output a later
// expression reads (a path prefix a check compares with) is part of the
// checks.
func checkAfterMessage(body ast.Body) *ast.Expr {
	formatted := false
	for i, expr := range body {
		if formatted && expr.Negated {
			return expr
		}
		if !expr.IsCall() || expr.Operator().String() != "sprintf" {
			continue
		}
		out, ok := expr.Operand(len(expr.Operands()) - 1).Value.(ast.Var)
		if !ok {
			continue
		}
		read := false
		for _, later := range body[i+1:] {
			if later.Vars(ast.VarVisitorParams{}).Contains(out) {
				read = true
				break
			}
		}
		formatted = formatted || !read
	}
	return nil
}

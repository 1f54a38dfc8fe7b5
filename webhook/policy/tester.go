package policy

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is the outcome of one Rego unit test.
type TestResult struct {
	// Name is "<package>.<rule>", e.g. data.sluice.mutating_test.test_x.
	Name string
	// Location is the test's file and line.
	Location string
	Passed   bool
	// Message says why the test failed or errored.
	Message string
}

// RunRegoTests runs every test_* rule of the bundle's test modules against
// its modules and data, and returns the results sorted by name.
func RunRegoTests(ctx context.Context, b *Bundle) ([]TestResult, error) {
	modules, err := ParseModules(b, true)
	if err != nil {
		return nil, err
	}
	store := NewStore(b)
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	ch, err := tester.NewRunner().
		SetCompiler(ast.NewCompiler().WithEnablePrintStatements(true).WithCapabilities(capabilities())).
		SetStore(store).
		SetModules(modules).
		SetTimeout(30*time.Second).
		RaiseBuiltinErrors(true).
		RunTests(ctx, txn)
	if err != nil {
		return nil, err
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{Name: r.Package + "." + r.Name, Passed: r.Pass()}
		if r.Location != nil {
			tr.Location = fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
		}
		switch {
		case r.Error != nil:
			tr.Message = r.Error.Error()
		case r.Fail:
			tr.Message = "test rule was false or undefined"
		case r.Skip:
			tr.Passed, tr.Message = true, "skipped"
		}
		if len(r.Output) > 0 {
			tr.Message += "\n" + string(r.Output)
		}
		out = append(out, tr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

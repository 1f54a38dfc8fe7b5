package policy

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
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
	results, _, err := runRegoTests(ctx, b, nil)
	return results, err
}

// RunRegoTestsCovered is RunRegoTests that also returns OPA's line
// coverage of the bundle's modules (not its tests) by the tests.
func RunRegoTestsCovered(ctx context.Context, b *Bundle) ([]TestResult, cover.Report, error) {
	return runRegoTests(ctx, b, cover.New())
}

func runRegoTests(ctx context.Context, b *Bundle, cov *cover.Cover) ([]TestResult, cover.Report, error) {
	modules, err := ParseModules(b, true)
	if err != nil {
		return nil, cover.Report{}, err
	}
	store := NewStore(b)
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, cover.Report{}, err
	}
	defer store.Abort(ctx, txn)
	runner := tester.NewRunner().
		SetCompiler(ast.NewCompiler().WithEnablePrintStatements(true).WithCapabilities(capabilities())).
		SetStore(store).
		SetModules(modules).
		SetTimeout(30 * time.Second).
		RaiseBuiltinErrors(true)
	if cov != nil {
		// Lines, not the passes that re-run every test without rule
		// indexing or early exit to tag what those would reach.
		runner = runner.SetCoverageQueryTracer(cov).SetCoverageRuns([]cover.Kind{})
	}
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		return nil, cover.Report{}, err
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
	var report cover.Report
	if cov != nil {
		for id := range b.Tests {
			delete(modules, id)
		}
		report = cov.Report(modules)
		for id := range b.Tests {
			delete(report.Files, id)
		}
	}
	return out, report, nil
}

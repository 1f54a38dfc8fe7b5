package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sluice-data/sluice/webhook/metrics"
)

func quickCounts(query string) (answered, opa float64) {
	return testutil.ToFloat64(metrics.QuickEvaluations.WithLabelValues(query, "answered")),
		testutil.ToFloat64(metrics.QuickEvaluations.WithLabelValues(query, "opa"))
}

// An input the closures do not answer is evaluated by OPA, and counted.
// The default policies give the closures no such input (the fixture
// cases check every one of them with QuickChecked), so this bundle's
// closures are those of another, which fail with a built-in's error.
func TestQuickFallsBackToOPA(t *testing.T) {
	ctx := context.Background()
	input := ast.MustParseTerm(`{"s": "not a number"}`).Value
	failing, err := Compile(ctx, bundleWith("package t\nanswer := to_number(input.s)"), q)
	if err != nil {
		t.Fatal(err)
	}
	quick := failing.queries[q].general.Quick
	if quick == nil {
		t.Fatal("the failing query was not compiled to closures")
	}
	for _, mode := range []QuickMode{QuickOn, QuickChecked, QuickOff} {
		c, err := compile(ctx, bundleWith("package t\nanswer := {\"p\": 1}"), nil, mode, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		c.queries[q].general.Quick = quick
		answered, opa := quickCounts(q)
		v, err := c.Eval(ctx, q, input)
		a2, o2 := quickCounts(q)
		switch mode {
		case QuickOn:
			if err != nil || v.Compare(ast.MustParseTerm(`{"p": 1}`).Value) != 0 {
				t.Errorf("QuickOn: %v, %v; want OPA's {\"p\": 1}", v, err)
			}
			if a2-answered != 0 || o2-opa != 1 {
				t.Errorf("QuickOn counted %v answered and %v by OPA, want 0 and 1", a2-answered, o2-opa)
			}
		case QuickChecked:
			if err != nil || v.Compare(ast.MustParseTerm(`{"p": 1}`).Value) != 0 || o2-opa != 1 {
				t.Errorf("QuickChecked: %v, %v, %v counted by OPA; want OPA's {\"p\": 1}, counted", v, err, o2-opa)
			}
		case QuickOff:
			if err != nil || a2 != answered || o2 != opa {
				t.Errorf("QuickOff: %v, %v, counts moved by %v and %v", v, err, a2-answered, o2-opa)
			}
		}
	}
}

// QuickChecked fails an evaluation whose closures answer otherwise than OPA.
func TestQuickCheckedFailsOnADifferentAnswer(t *testing.T) {
	ctx := context.Background()
	other, err := Compile(ctx, bundleWith("package t\nanswer := {\"p\": 2}"), q)
	if err != nil {
		t.Fatal(err)
	}
	c, err := compile(ctx, bundleWith("package t\nanswer := {\"p\": 1}"), nil, QuickChecked, []string{q})
	if err != nil {
		t.Fatal(err)
	}
	c.queries[q].general.Quick = other.queries[q].general.Quick
	if v, err := c.Eval(ctx, q, ast.NewObject()); err == nil || !strings.Contains(err.Error(), "the closures answered") {
		t.Errorf("QuickChecked: %v, %v; want the closures' different answer reported", v, err)
	}
}

// The closures answer an input they can, and QuickChecked compares them with OPA.
func TestQuickAnswers(t *testing.T) {
	ctx := context.Background()
	input := ast.MustParseTerm(`{"a": true}`).Value
	for _, mode := range []QuickMode{QuickOn, QuickChecked} {
		e := NewEngine(q).Quick(mode)
		if err := e.Load(ctx, bundleWith("package t\np := 1 if input.a\nanswer := {\"p\": p}")); err != nil {
			t.Fatal(err)
		}
		answered, _ := quickCounts(q)
		v, err := e.Eval(ctx, q, input)
		if err != nil || v.Compare(ast.MustParseTerm(`{"p": 1}`).Value) != 0 {
			t.Errorf("%v: %v, %v", mode, v, err)
		}
		if a2, _ := quickCounts(q); mode == QuickOn && a2-answered != 1 {
			t.Errorf("QuickOn counted %v answered, want 1", a2-answered)
		}
	}
}

// The default policies' queries compile to closures.
func TestDefaultQueriesCompileToClosures(t *testing.T) {
	b, err := DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(context.Background(), b, "data.sluice.mutating.decision", "data.sluice.validating.decision")
	if err != nil {
		t.Fatal(err)
	}
	for query, p := range c.queries {
		if p.general.Quick == nil {
			t.Errorf("%s was not compiled to closures: %v", query, p.general.Why)
		}
	}
}

package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

func obj(k, v string) ast.Value {
	return ast.NewObject(ast.Item(ast.StringTerm(k), ast.StringTerm(v)))
}

func TestMemo(t *testing.T) {
	m := NewMemo[string](2)
	if _, ok := m.Get(1, obj("a", "1")); ok {
		t.Fatal("hit on an empty memo")
	}
	m.Put(1, obj("a", "1"), "one")
	if v, ok := m.Get(1, obj("a", "1")); !ok || v != "one" {
		t.Fatalf("equal input: %q %v", v, ok)
	}
	if _, ok := m.Get(2, obj("a", "1")); ok {
		t.Fatal("a decision of an older bundle generation was reused")
	}
	if _, ok := m.Get(1, obj("a", "2")); ok {
		t.Fatal("a different input hit")
	}
	m.Put(1, obj("b", "1"), "two")
	m.Get(1, obj("a", "1")) // a is now the most recently used
	m.Put(1, obj("c", "1"), "three")
	if m.Len() != 2 {
		t.Fatalf("len = %d, want 2", m.Len())
	}
	if _, ok := m.Get(1, obj("b", "1")); ok {
		t.Fatal("the least recently used entry was not evicted")
	}
	if _, ok := m.Get(1, obj("a", "1")); !ok {
		t.Fatal("a recently used entry was evicted")
	}
	var disabled *Memo[string]
	disabled.Put(1, obj("a", "1"), "x")
	if _, ok := disabled.Get(1, obj("a", "1")); ok {
		t.Fatal("a nil memo remembered")
	}
}

func TestDeterministicBundles(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		module string
		want   bool
	}{
		{"package t\nanswer := 1", true},
		{"package t\nanswer := count(input.x)", true},
		{"package t\nanswer := time.now_ns()", false},
		{"package t\nanswer := rand.intn(\"x\", 10)", false},
	} {
		c, err := Compile(ctx, bundleWith(tt.module), q)
		if err != nil {
			t.Fatal(err)
		}
		if c.Deterministic() != tt.want {
			t.Errorf("%q: deterministic = %v, want %v", tt.module, c.Deterministic(), tt.want)
		}
	}
	b, err := DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Deterministic() {
		t.Error("the default policies must be deterministic, or their decisions cannot be remembered")
	}
}

func TestGenerationAdvancesOnLoad(t *testing.T) {
	ctx := context.Background()
	e := NewEngine(q)
	if err := e.Load(ctx, bundleWith("package t\nanswer := 1")); err != nil {
		t.Fatal(err)
	}
	g1 := e.Active().Generation()
	if err := e.Load(ctx, bundleWith("package t\nanswer := 2")); err != nil {
		t.Fatal(err)
	}
	if g2 := e.Active().Generation(); g2 <= g1 {
		t.Fatalf("generation %d after %d", g2, g1)
	}
}

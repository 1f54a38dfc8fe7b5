package policy

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

func obj(k, v string) ast.Value {
	return ast.NewObject(ast.Item(ast.StringTerm(k), ast.StringTerm(v)))
}

// valueMemo is a Memo keyed by Rego values themselves, with get and put
// computing their hashes and sizes.
type valueMemo[T any] struct{ m *Memo[ast.Value, T] }

func newValueMemo[T any](max int, maxBytes int64) valueMemo[T] {
	return valueMemo[T]{NewMemo[ast.Value, T](max, maxBytes, func(a, b *ast.Value) bool { return (*a).Compare(*b) == 0 })}
}

func (v valueMemo[T]) Get(gen uint64, in ast.Value) (T, bool) {
	return v.m.Get(gen, uint64(in.Hash()), &in)
}

func (v valueMemo[T]) Put(gen uint64, in ast.Value, value T) {
	v.m.Put(gen, uint64(in.Hash()), in, InputSize(in), value)
}

func (v valueMemo[T]) Len() int     { return v.m.Len() }
func (v valueMemo[T]) Bytes() int64 { return v.m.Bytes() }

func TestMemo(t *testing.T) {
	m := newValueMemo[string](2, 1<<20)
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
	// Keys are told apart by the memo's equality, not by their hash.
	collide := NewMemo[string, int](2, 1<<20, func(a, b *string) bool { return *a == *b })
	collide.Put(1, 7, "a", 1, 1)
	if _, ok := collide.Get(1, 7, ptrTo("b")); ok {
		t.Fatal("a different key of the same hash hit")
	}
	if v, ok := collide.Get(1, 7, ptrTo("a")); !ok || v != 1 {
		t.Fatalf("the same key: %d %v", v, ok)
	}
	// A hash's decisions are bounded: colliding inputs evict the oldest
	// of their own hash, so a lookup compares few keys.
	flood := NewMemo[int, int](100, 1<<20, func(a, b *int) bool { return *a == *b })
	for k := range 3 * maxBucket {
		flood.Put(1, 7, k, 1, k)
	}
	if n := len(flood.buckets[7]); n != maxBucket {
		t.Fatalf("%d decisions under one hash, want %d", n, maxBucket)
	}
	if _, ok := flood.Get(1, 7, ptrTo(0)); ok {
		t.Fatal("the oldest of a full hash was kept")
	}
	if _, ok := flood.Get(1, 7, ptrTo(3*maxBucket-1)); !ok || flood.Len() != maxBucket {
		t.Fatalf("the newest of a full hash: found %v, %d decisions in all", ok, flood.Len())
	}
	disabled := valueMemo[string]{}
	disabled.Put(1, obj("a", "1"), "x")
	if _, ok := disabled.Get(1, obj("a", "1")); ok {
		t.Fatal("a nil memo remembered")
	}
}

func ptrTo[T any](v T) *T { return &v }

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

// TestMemoIsBoundedByBytes (audit M9): 4,096 unique inputs of 200 KiB
// each (dry-run Pods with unique annotations) keep the memo within its
// byte bound, not at 4,096 × 200 KiB; an input over an eighth of the
// bound is not remembered, and the least recently used go first.
func TestMemoIsBoundedByBytes(t *testing.T) {
	const bound = 8 << 20
	m := newValueMemo[int](4096, bound)
	big := strings.Repeat("x", 200<<10)
	for i := range 4096 {
		m.Put(1, obj(fmt.Sprint(i), big), i)
	}
	if m.Bytes() > bound || m.Len() > bound/(200<<10) {
		t.Fatalf("after 4096 inputs of 200 KiB: %d bytes in %d decisions, want at most %d bytes", m.Bytes(), m.Len(), bound)
	}
	if _, ok := m.Get(1, obj("4095", big)); !ok {
		t.Fatal("the most recent input was not remembered")
	}
	if _, ok := m.Get(1, obj("0", big)); ok {
		t.Fatal("the oldest input was kept past the bound")
	}
	huge := strings.Repeat("y", bound/8+1)
	m.Put(1, obj("huge", huge), -1)
	if _, ok := m.Get(1, obj("huge", huge)); ok {
		t.Fatal("an input over an eighth of the bound was remembered")
	}
	// The heap follows: what the memo keeps is all that stays reachable.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Fatalf("heap after the flood: %d MiB, want under 64 MiB (the memo's bound is 8 MiB)", ms.HeapAlloc>>20)
	}
	runtime.KeepAlive(m)
}

func TestInputSize(t *testing.T) {
	small := InputSize(obj("a", "b"))
	if got := InputSize(obj("a", strings.Repeat("b", 1000))); got < small+999 {
		t.Fatalf("a 1000-byte string counts %d, want at least %d", got, small+999)
	}
	many := ast.NewArray()
	for range 1000 {
		many = many.Append(ast.BooleanTerm(true))
	}
	if got := InputSize(many); got < 1000*scalarOverhead {
		t.Fatalf("1000 booleans count %d, want their overhead (%d) at least", got, 1000*scalarOverhead)
	}
}

// TestNetworkBuiltinsDoNotCompile (audit L8): a policy module may not reach
// the network or the webhook's environment from the admission path.
func TestNetworkBuiltinsDoNotCompile(t *testing.T) {
	ctx := context.Background()
	for _, call := range []string{`http.send({"method": "get", "url": "http://example.com"})`, `net.lookup_ip_addr("example.com")`, `opa.runtime()`} {
		_, err := Compile(ctx, bundleWith("package t\nanswer := "+call), q)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "undefined function") {
			t.Errorf("a module calling %s: %v, want a compile error (undefined function)", call, err)
		}
	}
	if _, err := Compile(ctx, bundleWith("package t\nanswer := time.now_ns()"), q); err != nil {
		t.Errorf("other builtins compile: %v", err)
	}
}

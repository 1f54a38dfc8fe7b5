package policy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// TestVirtualCacheBehavesAsOPAs runs random sequences of Push, Pop, Put,
// Get and Keys on virtualCache and on OPA's topdown.NewVirtualCache, the
// oracle, and fails on the first answer that differs: refs that are
// prefixes of one another, equal refs built anew, values replaced, refs
// marked undefined before or after a value, frames pushed and popped, and
// caches reused after release.
func TestVirtualCacheBehavesAsOPAs(t *testing.T) {
	refs := []ast.Ref{}
	for _, s := range []string{"data.a", "data.a.b", "data.a.b.c", "data.a.c", `data.x[1]`, `data.x["1"]`, "data.y", "data.z.w"} {
		refs = append(refs, ast.MustParseRef(s))
	}
	values := []*ast.Term{nil, ast.BooleanTerm(true), ast.IntNumberTerm(1), ast.StringTerm("v"), ast.ObjectTerm(ast.Item(ast.StringTerm("k"), ast.NullTerm()))}
	rng := rand.New(rand.NewPCG(1, 2))
	for seq := 0; seq < 2000; seq++ {
		ours, oracle := newVirtualCache(), topdown.NewVirtualCache()
		depth := 1
		for op := 0; op < 40; op++ {
			ref := refs[rng.IntN(len(refs))].Copy() // equal, not the same slice
			switch rng.IntN(6) {
			case 0:
				if depth < 4 {
					ours.Push()
					oracle.Push()
					depth++
				}
			case 1:
				if depth > 1 {
					ours.Pop()
					oracle.Pop()
					depth--
				}
			case 2, 3:
				v := values[rng.IntN(len(values))]
				ours.Put(ref, v)
				oracle.Put(ref, v)
				ref[len(ref)-1] = ast.StringTerm("reused") // the caller reuses its ref
			case 4:
				gv, gu := ours.Get(ref)
				wv, wu := oracle.Get(ref)
				if gu != wu || (gv == nil) != (wv == nil) || (gv != nil && !gv.Equal(wv)) {
					t.Fatalf("sequence %d, op %d: Get(%v) = %v, %v; OPA's: %v, %v", seq, op, ref, gv, gu, wv, wu)
				}
			case 5:
				if got, want := keyStrings(ours.Keys()), keyStrings(oracle.Keys()); !slices.Equal(got, want) {
					t.Fatalf("sequence %d, op %d: Keys() = %v; OPA's: %v", seq, op, got, want)
				}
			}
		}
		ours.release()
	}
}

func keyStrings(refs []ast.Ref) []string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out
}

// TestVirtualCacheIsEmptyWhenReused: a cache taken again after release
// holds nothing of its last evaluation, in any frame.
func TestVirtualCacheIsEmptyWhenReused(t *testing.T) {
	ref := ast.MustParseRef("data.a.b")
	c := newVirtualCache()
	c.Put(ref, ast.BooleanTerm(true))
	c.Push()
	c.Put(ref, nil)
	c.release()
	for i := 0; i < 4; i++ {
		c := newVirtualCache()
		if v, undefined := c.Get(ref); v != nil || undefined || len(c.Keys()) != 0 {
			t.Fatalf("a reused cache holds %v (undefined %v), keys %v", v, undefined, c.Keys())
		}
		c.Push()
		if v, undefined := c.Get(ref); v != nil || undefined {
			t.Fatalf("a reused cache's pushed frame holds %v (undefined %v)", v, undefined)
		}
		c.release()
	}
}

// BenchmarkVirtualCache compares the two caches on the operations of an
// evaluation: about thirty rule values put and read back once.
func BenchmarkVirtualCache(b *testing.B) {
	var refs []ast.Ref
	for _, s := range []string{"data.sluice_prepared_q0.r", "data.sluice.mutating.deny", "data.sluice.mutating.warnings"} {
		for i := 0; i < 10; i++ {
			refs = append(refs, append(ast.MustParseRef(s), ast.IntNumberTerm(i)))
		}
	}
	v := ast.BooleanTerm(true)
	for _, c := range []struct {
		name string
		make func() (topdown.VirtualCache, func())
	}{
		{"opa", func() (topdown.VirtualCache, func()) { return topdown.NewVirtualCache(), func() {} }},
		{"pooled", func() (topdown.VirtualCache, func()) { c := newVirtualCache(); return c, c.release }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				vc, done := c.make()
				for _, r := range refs {
					vc.Put(r, v)
				}
				for _, r := range refs {
					vc.Get(r)
				}
				done()
			}
		})
	}
}

package policy

import (
	"context"
	"testing"
)

// A bundle replaced by a load has its Specialisers retired (their queued
// builds are skipped); a load that fails retires nothing, since the
// bundle stays active.
func TestLoadRetiresTheReplacedBundlesSpecialisers(t *testing.T) {
	ctx := context.Background()
	e := NewEngine(q).Specialising(false)
	module := "package t\nimport rego.v1\nanswer contains 1 if input.mode == \"a\"\nanswer contains 2 if input.mode == \"b\"\n"
	if err := e.Load(ctx, bundleWith(module)); err != nil {
		t.Fatal(err)
	}
	first := e.Active()
	specialisers := 0
	retired := func(c *Compiled) (n int) {
		for _, p := range c.queries {
			if p.spec != nil {
				specialisers++
				if p.spec.Retired() {
					n++
				}
			}
		}
		return n
	}
	if n := retired(first); specialisers == 0 || n != 0 {
		t.Fatalf("%d of %d specialisers retired while their bundle is active (want some, none retired)", n, specialisers)
	}
	if err := e.Load(ctx, bundleWith("package t\nanswer := undefined_function(1)")); err == nil {
		t.Fatal("a bundle that does not compile loaded")
	}
	if n := retired(first); n != 0 {
		t.Fatalf("a failed load retired %d specialisers of the active bundle", n)
	}
	if err := e.Load(ctx, bundleWith(module)); err != nil {
		t.Fatal(err)
	}
	specialisers = 0
	if n := retired(first); n != specialisers {
		t.Fatalf("%d of %d specialisers of the replaced bundle retired, want all", n, specialisers)
	}
}

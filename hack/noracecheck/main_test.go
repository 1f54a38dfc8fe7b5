package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each way of starting concurrent work is found, in code and in tests;
// a package without any passes.
func TestConcurrencyIsFound(t *testing.T) {
	for name, src := range map[string]string{
		"go statement":  "func f() { go func() {}() }",
		"WaitGroup.Go":  "func f(wg *sync.WaitGroup) { wg.Go(func() {}) }",
		"errgroup.Go":   "func f(g *errgroup.Group) { g.Go(func() error { return nil }) }",
		"parallel test": "func TestX(t *testing.T) { t.Parallel() }",
		"named go":      "func f() { go work() }",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := "a.go"
			if strings.HasPrefix(src, "func Test") {
				file = "a_test.go"
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte("package a\n\n"+src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			found, err := concurrency(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != 1 || !strings.Contains(found[0], file+":3:") {
				t.Errorf("found %q, want one finding in %s line 3", found, file)
			}
		})
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc f() { work(); g.Wait() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if found, err := concurrency(dir); err != nil || len(found) != 0 {
		t.Errorf("sequential code: found %q, %v", found, err)
	}
}

// A package whose tests start a control plane is found; one whose tests
// do not is not.
func TestControlPlanesAreFound(t *testing.T) {
	found, err := controlPlanes([]string{"github.com/sluice-data/sluice/tests/crd", "github.com/sluice-data/sluice/hack/noracecheck"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "github.com/sluice-data/sluice/tests/crd: ") {
		t.Errorf("found %q, want tests/crd alone", found)
	}
}

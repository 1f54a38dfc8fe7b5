package enginetest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sluice-data/sluice/controller/helm"
)

// update is the -update flag of every test binary that imports the package.
var update = flag.Bool("update", false, "rewrite the golden files")

// GoldenDir is where Golden keeps the golden files, relative to the test's
// package directory.
const GoldenDir = "testdata/golden"

// Golden checks that the chart rendered exactly the templates and compares
// each with its golden file in GoldenDir ("templates/x.yaml" is
// "templates_x.yaml"). With go test -update it rewrites the golden files
// instead, after a deliberate change.
func Golden(t testing.TB, out map[string]string, templates []string) {
	t.Helper()
	golden(t, GoldenDir, out, templates)
}

// GoldenCase is Golden for one of several renders of a package, kept in
// GoldenDir/<name> (e.g. testdata/golden/dataload-default).
func GoldenCase(t testing.TB, name string, out map[string]string, templates []string) {
	t.Helper()
	dir := filepath.Join(GoldenDir, name)
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, dir, out, templates)
}

func golden(t testing.TB, dir string, out map[string]string, templates []string) {
	t.Helper()
	if diff := cmp.Diff(templates, helm.SortedKeys(out)); diff != "" {
		t.Fatalf("rendered templates (-want +got):\n%s", diff)
	}
	for _, name := range templates {
		golden := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
		if *update {
			if err := os.WriteFile(golden, []byte(out[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), out[name]); diff != "" {
			t.Errorf("%s differs from %s (-golden +rendered):\n%s", name, golden, diff)
		}
	}
}

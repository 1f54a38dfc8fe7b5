package thin_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sluice-data/sluice/controller/helm"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestChartGolden renders the Thin chart with the Helm SDK for the sample
// Dataset, ThinRuntime and profile and compares it with testdata/golden
// (go test -update rewrites them after a deliberate change).
func TestChartGolden(t *testing.T) {
	ds, profile, rt := sample()
	_, out := render(t, ds, profile, rt)
	want := []string{"templates/fuse-config.yaml", "templates/fuse-daemonset.yaml", "templates/worker-statefulset.yaml"}
	if diff := cmp.Diff(want, helm.SortedKeys(out)); diff != "" {
		t.Fatalf("rendered templates (-want +got):\n%s", diff)
	}
	for _, name := range want {
		golden := filepath.Join("testdata", "golden", strings.ReplaceAll(name, "/", "_"))
		if *update {
			if err := os.WriteFile(golden, []byte(out[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if diff := cmp.Diff(string(data), out[name]); diff != "" {
			t.Errorf("%s differs from %s (-golden +rendered):\n%s", name, golden, diff)
		}
	}
}

package thin_test

import (
	"testing"

	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestChartGolden renders the Thin chart with the Helm SDK for the sample
// Dataset, ThinRuntime and profile and compares it with testdata/golden
// (go test -update rewrites them after a deliberate change).
func TestChartGolden(t *testing.T) {
	ds, profile, rt := sample()
	_, out := render(t, ds, profile, rt)
	enginetest.Golden(t, out, []string{"templates/fuse-config.yaml", "templates/fuse-daemonset.yaml", "templates/worker-statefulset.yaml"})
}

package devcluster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestDevDemo runs `sluice dev --demo --exit` in-process: the simulated
// cluster, Sluice installed from the platform chart, the webhook and the
// controller, and the whole demo story, every step of which must be
// observed. Then nothing of the run may be left.
func TestDevDemo(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "kwok")); err != nil {
		t.Skip("bin/kwok missing; `make test` builds the simulated cluster's binaries")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var out bytes.Buffer
	dir := t.TempDir()
	o := devOptions{
		assets: bin, chart: filepath.Join("..", "charts", "sluice"), kubeconfig: filepath.Join(dir, "kubeconfig"),
		state: stateDir(filepath.Join(dir, "state")), demo: true, exit: true,
		// The 2 s the demo promises holds on an idle machine; this one
		// shares its cores with other packages' tests, often under -race.
		reloadBound: testenv.Stretch(2 * time.Second),
	}
	start := time.Now()
	if err := runDev(ctx, &out, o); err != nil {
		t.Fatalf("sluice dev --demo: %v\n%s", err, out.String())
	}
	t.Logf("sluice dev --demo --exit took %v:\n%s", time.Since(start).Round(time.Second), out.String())
	for _, want := range []string{
		"Sluice dev cluster ready in",
		"webhook configurations point at https://localhost:",
		"demo: every step observed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, gone := range []string{o.kubeconfig, o.state.runDir(), o.state.recordPath()} {
		if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after the run (%v)", gone, err)
		}
	}
}

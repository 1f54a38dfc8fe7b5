package bench_test

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var (
	env      *testenv.Env
	benchCtx context.Context
)

// TestMain starts the control plane only when benchmarks run, so that
// `go test ./...` does not pay for it.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		os.Exit(m.Run())
	}
	ctrl.SetLogger(logr.Discard())
	// Run with the garbage-collector target `sluice webhook` uses.
	webhook.TuneGC(webhook.DefaultGCPercent)
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, _ *testenv.Env) error {
		benchCtx = ctx // cancelled when the benchmarks end, before the control plane stops
		return nil
	}))
}

package faults_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

// faults sits between the controller and the API server, webhookFaults
// between the webhook (its informers, its live reads) and the API server.
// The webhook makes few requests that are not watches (its informers'
// lists, a live read when its cache lags), so four times the share of
// them fails.
var (
	faults        = newInjector(1, 1)
	webhookFaults = newInjector(2, 4)
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{
		WebhookPaths: []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")},
	}, func(ctx context.Context, e *testenv.Env) error {
		if err := startWebhook(ctx, e); err != nil {
			return err
		}
		return startController(ctx, e)
	}))
}

// startController runs `sluice controller` in-process behind faults.
func startController(ctx context.Context, e *testenv.Env) error {
	o := controller.NewOptions()
	o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.CacheRefresh = "0", "0", false, time.Second
	o.ReleaseRetry = time.Second
	o.Engines = registry.Default(registry.Options{})
	cfg := rest.CopyConfig(e.Config)
	cfg.Wrap(faults.wrap)
	return controller.StartLocal(ctx, cfg, o, testenv.Stopped("controller"))
}

// startWebhook runs `sluice webhook` in-process behind webhookFaults,
// serving config/webhook's mutating and validating configurations, and
// waits until it is ready (before any fault is on).
func startWebhook(ctx context.Context, e *testenv.Env) error {
	cfg := rest.CopyConfig(e.Config)
	cfg.Wrap(webhookFaults.wrap)
	return inprocess.Webhook(ctx, e, cfg, 60*time.Second, nil)
}

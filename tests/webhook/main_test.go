package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.MainWith(m, &env, testenv.Options{
		WebhookPaths: []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")},
	}, startWebhook))
}

// startWebhook runs `sluice webhook` in-process against the test control
// plane and waits until it is ready.
func startWebhook(ctx context.Context, e *testenv.Env) error {
	return inprocess.Webhook(ctx, e, e.Config, 60*time.Second, nil)
}

package webhooktoken_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{
		WebhookPaths:            []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")},
		ServiceAccountAdmission: true,
	}, func(ctx context.Context, e *testenv.Env) error {
		return inprocess.Webhook(ctx, e, e.Config, 60*time.Second, nil)
	}))
}

package webhookaudit_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.MainWith(m, &env, testenv.Options{
		WebhookPaths: []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")},
	}, startWebhook))
}

// startWebhook installs the PolicyReport CRDs the chart ships and runs
// `sluice webhook --audit-interval=1h` in-process: after its first audit,
// only a policy bundle change starts another within the test.
func startWebhook(ctx context.Context, e *testenv.Env) error {
	if _, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(testenv.RepoRoot(), "charts", "sluice", "files", "policyreports")}, ErrorIfPathMissing: true,
	}); err != nil {
		return err
	}
	return inprocess.Webhook(ctx, e, e.Config, 60*time.Second, func(o *webhook.Options) {
		o.AuditInterval = time.Hour
	})
}

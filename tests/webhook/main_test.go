package webhook_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
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
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: webhook.DefaultNamespace}}); err != nil {
		return err
	}
	wi := e.Webhook()
	o := webhook.NewOptions()
	o.Host, o.Port, o.CertDir = wi.LocalServingHost, wi.LocalServingPort, wi.LocalServingCertDir
	o.Certs.Mode = certs.Files // envtest wrote the certificate and injected its CA
	o.MetricsAddr = "0"
	o.PolicyNamespaces = []string{webhook.DefaultNamespace}
	return webhook.StartLocal(ctx, e.Config, o, 60*time.Second)
}

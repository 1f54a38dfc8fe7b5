package webhookauth_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var (
	env *testenv.Env
	// dir holds the CAs and the client certificates.
	dir string
	// apiserverCA signed the API server's client certificate; the webhook
	// trusts it. otherCA is trusted by no one.
	apiserverCA, otherCA *testenv.CA
)

// clientName is the API server's client certificate's subject, the one
// name the webhook accepts.
const clientName = "kube-apiserver-webhook-client"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if dir, err = os.MkdirTemp("", "webhookauth-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if apiserverCA, err = testenv.NewCA("apiserver-client-ca"); err == nil {
		otherCA, err = testenv.NewCA("another-ca")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cert, err := apiserverCA.IssueClient(dir, clientName)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return testenv.MainWith(m, &env, testenv.Options{
		WebhookPaths:      []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")},
		WebhookClientCert: &cert,
	}, startWebhook)
}

// startWebhook runs `sluice webhook` in-process against the test control
// plane with the client authentication the chart configures
// (webhook.clientAuth: the CA from a ConfigMap, the API server's name
// allowed) and waits until it is ready.
func startWebhook(ctx context.Context, e *testenv.Env) error {
	if err := storeCA(ctx, e.Client, apiserverCA.PEM); err != nil {
		return err
	}
	caFile, names, err := chartClientAuth(ctx, e.Client, dir)
	if err != nil {
		return err
	}
	return inprocess.Webhook(ctx, e, e.Config, 60*time.Second, func(o *webhook.Options) {
		o.ClientCAFile, o.ClientNames = caFile, names
	})
}

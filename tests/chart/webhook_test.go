package chart_test

import (
	"bytes"
	"context"
	"net"
	"testing"

	"github.com/spf13/cobra"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
)

// webhookWrote is what a self-managed webhook writes: the Secret's data
// and the caBundle of every webhook of both configurations.
type webhookWrote struct {
	secret    map[string][]byte
	caBundles map[string][]byte
}

// runInstalledWebhook runs `sluice webhook` as the installed Deployment
// would (runInstalled). It waits until the webhook is ready, which in
// self-managed mode means that its certificate is loaded and every webhook
// of both installed configurations trusts it, scrapes its secure metrics,
// stops it and returns what it wrote.
func runInstalledWebhook(ctx context.Context, t *testing.T, c *simcluster.Cluster, ns string) webhookWrote {
	t.Helper()
	metrics := testenv.FreeAddr(t)
	stop := runInstalled(ctx, t, c, ns, "sluice-webhook", func(cfg *rest.Config) *cobra.Command {
		return webhook.NewCommand(func() (*rest.Config, error) { return cfg, nil })
	}, "--host=127.0.0.1", "--port="+port(testenv.FreeAddr(t)), "--metrics-bind-address="+metrics, "--cert-dir="+t.TempDir())
	checkSecureMetrics(ctx, t, c, ns, "webhook", "https://"+metrics+"/metrics", `sluice_build_info{component="webhook",`)
	stop()
	return readWebhookWrote(ctx, t, c.Client, ns)
}

// readWebhookWrote reads the Secret and the caBundles, checking that the
// Secret holds a CA and a certificate and every webhook trusts exactly
// that CA.
func readWebhookWrote(ctx context.Context, t *testing.T, c client.Client, ns string) webhookWrote {
	t.Helper()
	secret := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sluice-webhook-cert"}, secret); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{certs.CACertKey, certs.CAKeyKey, corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
		if len(secret.Data[k]) == 0 {
			t.Errorf("the webhook's Secret has no %s", k)
		}
	}
	w := webhookWrote{secret: secret.Data, caBundles: map[string][]byte{}}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: "sluice-mutating-webhook"}, m); err != nil {
		t.Fatal(err)
	}
	for _, wh := range m.Webhooks {
		w.caBundles[wh.Name] = wh.ClientConfig.CABundle
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: "sluice-validating-webhook"}, v); err != nil {
		t.Fatal(err)
	}
	for _, wh := range v.Webhooks {
		w.caBundles[wh.Name] = wh.ClientConfig.CABundle
	}
	// Mutating: labelled Pods, claim Pods; validating: objects, workloads,
	// CronJobs.
	if len(w.caBundles) != 5 {
		t.Errorf("%d webhooks in the installed configurations, want 5", len(w.caBundles))
	}
	for name, b := range w.caBundles {
		if !bytes.Equal(b, secret.Data[certs.CACertKey]) {
			t.Errorf("webhook %s: the caBundle is not the Secret's ca.crt", name)
		}
	}
	return w
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

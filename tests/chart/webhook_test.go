package chart_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/tests/simcluster"
	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
)

// webhookWrote is what a self-managed webhook writes: the Secret's data
// and the caBundle of every webhook of both configurations.
type webhookWrote struct {
	secret    map[string][]byte
	caBundles map[string][]byte
}

// runInstalledWebhook runs `sluice webhook` in-process as the installed
// Deployment would (kwok only pretends to run its Pods): with its
// container's arguments and SLUICE_WEBHOOK_* environment, as its
// ServiceAccount (impersonated, so that the chart's RBAC is all it may
// do), listening locally and with a temporary certificate directory. It
// waits until the webhook is ready, which in self-managed mode means that
// its certificate is loaded and every webhook of both installed
// configurations trusts it, stops it and returns what it wrote.
func runInstalledWebhook(ctx context.Context, t *testing.T, c *simcluster.Cluster, ns string) webhookWrote {
	t.Helper()
	dep := &appsv1.Deployment{}
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sluice-webhook"}, dep); err != nil {
		t.Fatal(err)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	for _, e := range ctr.Env {
		if strings.HasPrefix(e.Name, "SLUICE_WEBHOOK_") {
			t.Setenv(e.Name, e.Value)
		}
	}
	t.Setenv("POD_NAMESPACE", ns) // the Deployment's fieldRef
	var args []string
	for _, a := range ctr.Args[1:] { // after "webhook"
		if !strings.HasPrefix(a, "--zap-") { // the root command's logging flags
			args = append(args, a)
		}
	}
	probe, metrics := testenv.FreeAddr(t), testenv.FreeAddr(t)
	args = append(args, "--host=127.0.0.1", "--port="+port(testenv.FreeAddr(t)), "--metrics-bind-address="+metrics,
		"--health-probe-bind-address="+probe, "--cert-dir="+t.TempDir())
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + ns + ":" + dep.Spec.Template.Spec.ServiceAccountName,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	logs := &testenv.LockedBuffer{}
	ctrl.SetLogger(zap.New(zap.WriteTo(logs)))
	cmd := webhook.NewCommand(func() (*rest.Config, error) { return cfg, nil })
	cmd.SetArgs(args)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(runCtx) }()
	stopped := false
	defer func() {
		if !stopped {
			stop()
			<-done
		}
		if t.Failed() {
			t.Logf("sluice webhook %s:\n%s", strings.Join(args, " "), logs.String())
		}
	}()

	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		select {
		case err := <-done:
			stopped = true
			return false, fmt.Errorf("sluice webhook stopped: %v", err)
		default:
		}
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("the installed webhook did not become ready: %v", err)
	}
	t.Logf("the installed webhook, self-managed, was ready after %v", time.Since(start).Round(100*time.Millisecond))
	checkSecureMetrics(ctx, t, c, ns, "https://"+metrics+"/metrics")
	stop()
	stopped = true
	if err := <-done; err != nil {
		t.Errorf("sluice webhook: %v", err)
	}
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
	if len(w.caBundles) != 3 {
		t.Errorf("%d webhooks in the installed configurations, want 3", len(w.caBundles))
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

package certmanager_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/certmanager"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { os.Exit(testenv.Main(m, &env)) }

// With cert-manager's own controller and cainjector, a Certificate from a
// self-signed Issuer is issued into its Secret (a key pair whose ca.crt
// verifies tls.crt for the Service's DNS name), becomes Ready, and its CA is
// injected into a ValidatingWebhookConfiguration annotated
// cert-manager.io/inject-ca-from: what the chart's cert-manager mode relies
// on.
func TestSelfSignedCertificateIssuedAndCAInjected(t *testing.T) {
	if err := certmanager.InstallCRDs(env.Config); err != nil {
		t.Fatal(err)
	}
	cm, err := certmanager.Start(env.Kubeconfig(t), t.TempDir(), "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cert-manager's logs:\n%s", cm.Logs(40))
		}
		cm.Stop()
	})
	ns := env.Namespace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := env.Client
	dnsName := "sluice-webhook." + ns + ".svc"

	// The webhook configuration exists before the certificate is issued, as
	// on install.
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "cert-manager-test-" + ns, Annotations: map[string]string{
			"cert-manager.io/inject-ca-from": ns + "/sluice-webhook",
		}},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "probe.sluice.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
				Namespace: ns, Name: "sluice-webhook", Path: ptr.To("/validate"),
			}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			// Matches no object: the configuration is only a target for
			// injection.
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"sluice.io/never": "true"}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := c.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), vwc) })
	issuer := object("Issuer", ns, "sluice-selfsigned", map[string]any{"selfSigned": map[string]any{}})
	cert := object("Certificate", ns, "sluice-webhook", map[string]any{
		"secretName": "sluice-webhook-cert",
		"dnsNames":   []any{dnsName},
		"issuerRef":  map[string]any{"name": "sluice-selfsigned", "kind": "Issuer"},
		"privateKey": map[string]any{"algorithm": "ECDSA", "size": int64(256)},
	})
	for _, o := range []client.Object{issuer, cert} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	secret := &corev1.Secret{}
	waitFor(ctx, t, cm, "the Secret sluice-webhook-cert with tls.crt, tls.key and ca.crt", func() bool {
		err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sluice-webhook-cert"}, secret)
		return err == nil && len(secret.Data["tls.crt"]) > 0 && len(secret.Data["tls.key"]) > 0 && len(secret.Data["ca.crt"]) > 0
	})
	if _, err := tls.X509KeyPair(secret.Data["tls.crt"], secret.Data["tls.key"]); err != nil {
		t.Errorf("tls.crt and tls.key are not a key pair: %v", err)
	}
	leaf := parseCert(t, secret.Data["tls.crt"])
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(secret.Data["ca.crt"]) {
		t.Fatalf("ca.crt holds no certificate:\n%s", secret.Data["ca.crt"])
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: dnsName, Roots: roots}); err != nil {
		t.Errorf("ca.crt does not verify tls.crt for %s: %v", dnsName, err)
	}

	waitFor(ctx, t, cm, "the Certificate to be Ready", func() bool {
		got := object("Certificate", ns, "sluice-webhook", nil)
		if err := c.Get(ctx, client.ObjectKeyFromObject(got), got); err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, cond := range conds {
			if m, ok := cond.(map[string]any); ok && m["type"] == "Ready" && m["status"] == "True" {
				return true
			}
		}
		return false
	})

	waitFor(ctx, t, cm, "ca.crt injected into the ValidatingWebhookConfiguration", func() bool {
		if err := c.Get(ctx, client.ObjectKeyFromObject(vwc), vwc); err != nil {
			return false
		}
		return bytes.Equal(vwc.Webhooks[0].ClientConfig.CABundle, secret.Data["ca.crt"])
	})
}

// object is a cert-manager.io/v1 object (the Sluice module does not import
// cert-manager's Go types for this test).
func object(kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion("cert-manager.io/v1")
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

func parseCert(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("no PEM block in:\n%s", data)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// waitFor polls cond every 200 ms until it holds, failing the test when ctx
// ends or a cert-manager process exits first.
func waitFor(ctx context.Context, t *testing.T, cm *certmanager.CertManager, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for !cond() {
		if err := cm.Check(); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %s", what, time.Since(start).Round(time.Second))
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Logf("%s after %s", what, time.Since(start).Round(100*time.Millisecond))
}

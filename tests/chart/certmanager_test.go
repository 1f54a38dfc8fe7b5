package chart_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/tests/support/certmanager"
	"github.com/sluice-data/sluice/tests/support/simcluster"
)

// startCertManager installs cert-manager's CRDs into the cluster and runs
// its own controller and cainjector against it until the test ends, as
// docs/install.md says to before installing in cert-manager mode.
func startCertManager(t *testing.T, c *simcluster.Cluster) *certmanager.CertManager {
	t.Helper()
	if err := certmanager.InstallCRDs(c.Config); err != nil {
		t.Fatal(err)
	}
	cm, err := certmanager.Start(c.Kubeconfig, t.TempDir(), "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cert-manager's logs:\n%s", cm.Logs(40))
		}
		cm.Stop()
	})
	return cm
}

// checkIssuedAndInjected checks what cert-manager makes of the installed
// release: both of the chart's Certificates Ready, the serving certificate
// in the Secret the webhook mounts, signed by the chart's CA for the
// Service's names, and that CA injected by the cainjector into every
// webhook of both installed configurations, so that the API server,
// calling the Service, trusts the certificate the webhook presents. It
// returns the names of the Secrets cert-manager wrote.
func checkIssuedAndInjected(ctx context.Context, t *testing.T, c client.Client, cm *certmanager.CertManager, ns string) []string {
	t.Helper()
	start := time.Now()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := cm.Check(); err != nil {
			return false, err
		}
		last = issuedAndInjected(ctx, c, ns)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("cert-manager did not issue and inject the chart's certificates: %v (last: %v)", err, last)
	}
	t.Logf("cert-manager issued the chart's CA and serving certificate and injected the CA into both configurations after %s",
		time.Since(start).Round(100*time.Millisecond))
	return []string{"sluice-webhook-ca", "sluice-webhook-cert"}
}

// issuedAndInjected is nil once the release's certificates are issued and
// injected, else says what is missing.
func issuedAndInjected(ctx context.Context, c client.Client, ns string) error {
	for _, name := range []string{"sluice-webhook-ca", "sluice-webhook"} {
		if err := certificateReady(ctx, c, ns, name); err != nil {
			return err
		}
	}
	ca, serving := &corev1.Secret{}, &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sluice-webhook-ca"}, ca); err != nil {
		return err
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "sluice-webhook-cert"}, serving); err != nil {
		return err
	}
	bundle := serving.Data["ca.crt"]
	if len(bundle) == 0 || !bytes.Equal(bundle, ca.Data[corev1.TLSCertKey]) {
		return errors.New("the serving Secret's ca.crt is not the chart's CA (sluice-webhook-ca's tls.crt)")
	}
	block, _ := pem.Decode(serving.Data[corev1.TLSCertKey])
	if block == nil {
		return errors.New("the serving Secret has no certificate")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	for _, name := range []string{"sluice-webhook." + ns + ".svc", "sluice-webhook." + ns + ".svc.cluster.local"} {
		opts := x509.VerifyOptions{Roots: roots, DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if _, err := leaf.Verify(opts); err != nil {
			return fmt.Errorf("the serving certificate for %s: %w", name, err)
		}
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: "sluice-mutating-webhook"}, m); err != nil {
		return err
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: "sluice-validating-webhook"}, v); err != nil {
		return err
	}
	bundles := map[string][]byte{}
	for _, w := range m.Webhooks {
		bundles[w.Name] = w.ClientConfig.CABundle
	}
	for _, w := range v.Webhooks {
		bundles[w.Name] = w.ClientConfig.CABundle
	}
	if len(bundles) != 5 { // as TestInstallIntoSimulatedCluster's
		return fmt.Errorf("%d webhooks in the installed configurations, want 5", len(bundles))
	}
	for name, b := range bundles {
		if !bytes.Equal(b, bundle) {
			return fmt.Errorf("webhook %s: the caBundle is not the chart's CA", name)
		}
	}
	return nil
}

// certificateReady is nil once cert-manager reports the Certificate Ready
// for its current generation.
func certificateReady(ctx context.Context, c client.Client, ns, name string) error {
	cert := &unstructured.Unstructured{}
	cert.SetAPIVersion("cert-manager.io/v1")
	cert.SetKind("Certificate")
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cert); err != nil {
		return err
	}
	conds, _, _ := unstructured.NestedSlice(cert.Object, "status", "conditions")
	for _, cond := range conds {
		m, _ := cond.(map[string]any)
		if m["type"] != "Ready" {
			continue
		}
		if m["status"] == "True" && m["observedGeneration"] == cert.GetGeneration() {
			return nil
		}
		return fmt.Errorf("Certificate %s: Ready is %v (%v: %v)", name, m["status"], m["reason"], m["message"])
	}
	return fmt.Errorf("Certificate %s: no Ready condition yet", name)
}

// checkSecretsKept checks that the Secrets cert-manager wrote are still
// there after helm uninstall, as docs/install.md says (cert-manager does
// not own them unless it runs with --enable-certificate-owner-ref).
func checkSecretsKept(ctx context.Context, t *testing.T, c client.Client, ns string, names []string) {
	t.Helper()
	for _, name := range names {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &corev1.Secret{}); err != nil {
			if apierrors.IsNotFound(err) {
				t.Errorf("Secret %s was deleted with the release; docs/install.md says cert-manager keeps it", name)
				continue
			}
			t.Error(err)
		}
	}
}

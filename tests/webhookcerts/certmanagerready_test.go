package webhookcerts_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/webhook/certs"
)

// TestCertManagerModeReadyOnlyOnceTheCAIsInjected (audit N16): a replica
// in cert-manager mode presenting a certificate is not ready while the
// configurations are missing, nor while their caBundles are empty (the
// cainjector has not run yet), nor while only one configuration trusts
// it; it is ready once both do, and not ready again as soon as a caBundle
// no longer trusts it (the caBundles are read live, not from a cache).
// The test plays the cainjector: it writes the caBundles.
func TestCertManagerModeReadyOnlyOnceTheCAIsInjected(t *testing.T) {
	ns := env.Namespace(t)
	cfgs := newConfigurations(ns)
	r := startReplica(t, "a", ns, replicaOptions{env: map[string]string{
		certs.EnvMode: string(certs.CertManager), certs.EnvCertificate: "sluice-webhook",
		certs.EnvMutatingConfiguration: cfgs.mutating, certs.EnvValidatingConfiguration: cfgs.validating,
	}})
	ca, caKey := issue(t, "test-ca", nil, nil)
	leaf, leafKey := issue(t, "", ca, caKey)
	keyDER, err := x509.MarshalECPrivateKey(leafKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := certs.WriteDir(r.certDir, map[string][]byte{
		certs.CertFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}),
		certs.KeyFile:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the certificate presented", func() error {
		if served := r.served(); served == nil || !served.Equal(leaf) {
			return errors.New("not presented yet")
		}
		return nil
	})
	notReady := func(what string, want ...string) {
		t.Helper()
		// Not ready now, and still not a second later.
		for range 5 {
			err := r.certificateCheck()
			if err == nil {
				t.Fatalf("%s: ready", what)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("%s: /readyz/certificate says %v, want %q", what, err, w)
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	notReady("no configurations", "reading MutatingWebhookConfiguration "+cfgs.mutating)

	url := fmt.Sprintf("https://localhost:%d", port(r.addr))
	cfgs.createMutating(t, configurationOptions{mutatingURL: url})
	cfgs.createValidating(t, configurationOptions{validatingURL: url})
	notReady("the caBundles empty", "MutatingWebhookConfiguration "+cfgs.mutating+" webhook", "ValidatingWebhookConfiguration "+cfgs.validating+" webhook", "the caBundle is empty")

	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	setBundles(t, cfgs.mutating, &admissionregistrationv1.MutatingWebhookConfiguration{}, caPEM)
	notReady("the CA in the mutating configuration only", "ValidatingWebhookConfiguration "+cfgs.validating+" webhook")
	setBundles(t, cfgs.validating, &admissionregistrationv1.ValidatingWebhookConfiguration{}, caPEM)
	// Readiness also waits for the policy bundle, whose first load takes
	// seconds on a machine busy with other suites; what this test times is
	// the certificate check.
	waitFor(t, time.Minute, "the policy bundle loaded", func() error { return r.get("/readyz/policies") })
	waitFor(t, 5*time.Second, "ready once both configurations trust the certificate", r.readyz)

	other, _ := issue(t, "another-ca", nil, nil)
	setBundles(t, cfgs.validating, &admissionregistrationv1.ValidatingWebhookConfiguration{}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.Raw}))
	waitFor(t, 2*time.Second, "not ready once the validating configuration trusts another CA", func() error {
		err := r.certificateCheck()
		if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
			return fmt.Errorf("/readyz/certificate says %v", err)
		}
		return nil
	})
}

// setBundles writes bundle as the caBundle of every webhook of the
// configuration name (cfg: its kind, empty).
func setBundles(t *testing.T, name string, cfg client.Object, bundle []byte) {
	t.Helper()
	ctx := context.Background()
	if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, cfg); err != nil {
		t.Fatal(err)
	}
	switch c := cfg.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for i := range c.Webhooks {
			c.Webhooks[i].ClientConfig.CABundle = bundle
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for i := range c.Webhooks {
			c.Webhooks[i].ClientConfig.CABundle = bundle
		}
	}
	if err := env.Client.Update(ctx, cfg); err != nil {
		t.Fatal(err)
	}
}

// issue returns a CA named cn signed by parent (itself if nil), or with
// cn "" a serving certificate for localhost.
func issue(t *testing.T, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour)}
	if cn == "" {
		tmpl.DNSNames, tmpl.ExtKeyUsage, tmpl.KeyUsage = []string{"localhost"}, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, x509.KeyUsageDigitalSignature
	} else {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

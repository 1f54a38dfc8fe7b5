package certs

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// TestReadyInEveryMode (audit N16): a replica with a certificate loaded
// is ready only once both configurations' caBundles trust it, in
// cert-manager mode as in self-managed mode (before, cert-manager mode was
// ready as soon as a certificate was loaded, before the cainjector wrote
// the caBundles); in files mode no caBundle is checked.
func TestReadyInEveryMode(t *testing.T) {
	now := time.Now()
	ca, other := newCA(t, now.Add(-time.Hour), 24*time.Hour), newCA(t, now.Add(-time.Hour), 24*time.Hour)
	crt, key := newServing(t, ca, now.Add(-time.Hour), 24*time.Hour)
	for _, tc := range []struct {
		name   string
		mode   Mode
		bundle []byte // the caBundle of every webhook; nil: none injected
		want   string // a substring of Ready's error; "": ready
	}{
		{"self-managed, not injected", SelfManaged, nil, "does not trust the serving certificate (the CA is not injected yet): the caBundle is empty"},
		{"self-managed, injected", SelfManaged, ca.CertPEM, ""},
		{"cert-manager, not injected", CertManager, nil, "ValidatingWebhookConfiguration v webhook objects does not trust the serving certificate"},
		{"cert-manager, another CA injected", CertManager, other.CertPEM, "certificate signed by unknown authority"},
		{"cert-manager, injected", CertManager, ca.CertPEM, ""},
		{"files, not injected", Files, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servingWith(t, tc.mode, crt, key, fake.NewClientBuilder().WithScheme(configurationScheme(t)).
				WithObjects(configurationObjects(tc.bundle)...).Build())
			err := s.Ready(httptest.NewRequest("GET", "/readyz", nil))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("not ready: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Ready: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// Ready reads the caBundles each time: a CA removed from them makes the
// replica not ready at the next check, whatever a cache would still say.
func TestReadyReadsTheCABundlesLive(t *testing.T) {
	now := time.Now()
	ca := newCA(t, now.Add(-time.Hour), 24*time.Hour)
	crt, key := newServing(t, ca, now.Add(-time.Hour), 24*time.Hour)
	c := fake.NewClientBuilder().WithScheme(configurationScheme(t)).WithObjects(configurationObjects(ca.CertPEM)...).Build()
	s := servingWith(t, CertManager, crt, key, c)
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := s.Ready(req); err != nil {
		t.Fatalf("not ready with the CA injected: %v", err)
	}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(context.Background(), client.ObjectKey{Name: "v"}, v); err != nil {
		t.Fatal(err)
	}
	v.Webhooks[0].ClientConfig.CABundle = newCA(t, now.Add(-time.Hour), 24*time.Hour).CertPEM
	if err := c.Update(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(req); err == nil || !strings.Contains(err.Error(), "ValidatingWebhookConfiguration v webhook objects does not trust") {
		t.Fatalf("Ready after the CA was replaced in the validating configuration: %v", err)
	}
}

// A served chain with an intermediate CA is trusted by a caBundle holding
// the root only, as the API server trusts it.
func TestUntrustedFollowsTheServedChain(t *testing.T) {
	now := time.Now()
	root, rootKey := selfSigned(t, "root", nil, nil, now)
	inter, interKey := selfSigned(t, "intermediate", root, rootKey, now)
	leaf, _ := selfSigned(t, "", inter, interKey, now)
	bundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: root.Raw})
	bundles := map[string][]byte{"M m webhook a": bundle}
	if err := untrusted([]*x509.Certificate{leaf, inter}, bundles, now); err != nil {
		t.Fatalf("the chain leaf, intermediate is not trusted by the root: %v", err)
	}
	if err := untrusted([]*x509.Certificate{leaf}, bundles, now); err == nil {
		t.Fatal("the leaf alone is trusted by the root, want an error (the intermediate is missing)")
	}
}

// servingWith is a Serving of mode presenting crt and key, reading the
// configurations "m" and "v" through r.
func servingWith(t *testing.T, mode Mode, crt, key []byte, r client.Reader) *Serving {
	t.Helper()
	dir := t.TempDir()
	if err := WriteDir(dir, map[string][]byte{CertFile: crt, KeyFile: key}); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Mode: mode, Dir: dir, Namespace: "sluice-system", SecretName: "s", ServiceName: "sluice-webhook",
		MutatingConfiguration: "m", ValidatingConfiguration: "v", CertificateName: "c", Rotation: DefaultRotation}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.loader.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the certificate loaded", func() bool { return s.loader.Current() != nil })
	s.bundles = &liveBundles{reader: r, mutating: "m", validating: "v", timeout: time.Second, maxStale: time.Minute}
	return s
}

// configurationObjects are the configurations "m" (two webhooks) and "v"
// (one), each webhook with bundle as its caBundle.
func configurationObjects(bundle []byte) []client.Object {
	cc := admissionregistrationv1.WebhookClientConfig{CABundle: bundle}
	return []client.Object{
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a", ClientConfig: cc}, {Name: "b", ClientConfig: cc}}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "objects", ClientConfig: cc}}},
	}
}

func configurationScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// selfSigned issues a certificate named cn (a CA) signed by parent
// (itself if nil); cn "" is a server certificate for testDNSName.
func selfSigned(t *testing.T, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)}
	if cn == "" {
		tmpl.DNSNames, tmpl.ExtKeyUsage, tmpl.KeyUsage = []string{testDNSName}, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, x509.KeyUsageDigitalSignature
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

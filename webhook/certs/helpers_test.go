package certs

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
)

const testDNSName = "sluice-webhook.sluice-system.svc"

// testRotator issues certificates as the webhook's rotator does.
func testRotator() *rotator.CertRotator {
	return &rotator.CertRotator{CAName: caName, CAOrganization: caOrg, DNSName: testDNSName,
		ExtKeyUsages: &[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
}

// newCA returns a CA valid from notBefore for validity.
func newCA(t *testing.T, notBefore time.Time, validity time.Duration) *rotator.KeyPairArtifacts {
	t.Helper()
	ca, err := testRotator().CreateCACert(notBefore, notBefore.Add(validity))
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// newServing returns a serving certificate and key (PEM) signed by ca.
func newServing(t *testing.T, ca *rotator.KeyPairArtifacts, notBefore time.Time, validity time.Duration) (crt, key []byte) {
	t.Helper()
	crt, key, err := testRotator().CreateCertPEM(ca, notBefore, notBefore.Add(validity))
	if err != nil {
		t.Fatal(err)
	}
	return crt, key
}

func leafOfPEM(t *testing.T, crt, key []byte) *x509.Certificate {
	t.Helper()
	pair, err := tls.X509KeyPair(crt, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := leafOf(&pair)
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rotatorValid is cert-controller's check of a CA (dnsName its name, no
// key usages) or of a serving certificate, at a time.
var rotatorValid = rotator.ValidCert

type rotatorArtifacts = rotator.KeyPairArtifacts

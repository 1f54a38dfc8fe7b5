package certs

import (
	"crypto/x509"
	"strings"
	"testing"
	"time"
)

func TestUntrusted(t *testing.T) {
	now := time.Now()
	ca, other := newCA(t, now.Add(-time.Hour), 24*time.Hour), newCA(t, now.Add(-time.Hour), 24*time.Hour)
	crt, key := newServing(t, ca, now.Add(-time.Hour), 24*time.Hour)
	leaf := leafOfPEM(t, crt, key)
	both := append(append([]byte{}, other.CertPEM...), ca.CertPEM...)
	for _, tc := range []struct {
		name    string
		bundles map[string][]byte
		want    []string // substrings of the error, in order; none: trusted
	}{
		{"every webhook trusts the CA", map[string][]byte{"M m webhook a": ca.CertPEM, "V v webhook b": both}, nil},
		{"no webhooks", map[string][]byte{}, nil},
		{"one empty caBundle", map[string][]byte{"M m webhook a": ca.CertPEM, "V v webhook b": nil},
			[]string{"V v webhook b does not trust the serving certificate (the CA is not injected yet): the caBundle is empty"}},
		{"another CA in both", map[string][]byte{"M m webhook a": other.CertPEM, "V v webhook b": other.CertPEM},
			[]string{"M m webhook a does not trust", "V v webhook b does not trust", "certificate signed by unknown authority"}},
		{"not PEM", map[string][]byte{"M m webhook a": []byte("Y2E=")}, []string{"the caBundle holds no PEM certificate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := untrusted([]*x509.Certificate{leaf}, tc.bundles, now)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("trusted, want an error")
			}
			rest := err.Error()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (in order)", err, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// A certificate is trusted only while it is valid.
func TestUntrustedAfterExpiry(t *testing.T) {
	now := time.Now()
	ca := newCA(t, now.Add(-time.Hour), 24*time.Hour)
	crt, key := newServing(t, ca, now.Add(-time.Hour), 2*time.Hour)
	leaf := leafOfPEM(t, crt, key)
	if err := untrusted([]*x509.Certificate{leaf}, map[string][]byte{"M m webhook a": ca.CertPEM}, now.Add(3*time.Hour)); err == nil {
		t.Fatal("an expired certificate is trusted")
	}
}

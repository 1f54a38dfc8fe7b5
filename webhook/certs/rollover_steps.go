package certs

import (
	"crypto/x509"
	"fmt"
	"maps"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
)

// issuer makes CAs and serving certificates the way cert-controller does
// (it is the *rotator.CertRotator the webhook runs, with its names and key
// usages).
type issuer interface {
	CreateCACert(begin, end time.Time) (*rotator.KeyPairArtifacts, error)
	CreateCertPEM(ca *rotator.KeyPairArtifacts, begin, end time.Time) ([]byte, []byte, error)
}

// backdate is how long before now new certificates are valid from, as
// cert-controller does, for clocks a little behind.
const backdate = time.Hour

// apply returns the Secret data after step s (not stepWait), leaving data
// unchanged.
func apply(s step, data map[string][]byte, a authorities, is issuer, r Rotation, now time.Time) (map[string][]byte, error) {
	out := maps.Clone(data)
	switch s {
	case stepTidy:
		kept := []*x509.Certificate{a.signing}
		for _, c := range a.retired {
			if now.Before(c.NotAfter) {
				kept = append(kept, c)
			}
		}
		if a.next != nil {
			kept = append(kept, a.next)
		} else {
			delete(out, NextCAKeyKey)
		}
		out[CACertKey] = encodeCerts(kept...)
	case stepTrustNext:
		next, err := is.CreateCACert(now.Add(-backdate), now.Add(r.CAValidity))
		if err != nil {
			return nil, fmt.Errorf("creating the next CA: %w", err)
		}
		out[CACertKey] = encodeCerts(append(a.trusted(), next.Cert)...)
		out[NextCAKeyKey] = next.KeyPEM
	case stepSignWithNext:
		nextKeyPEM := data[NextCAKeyKey]
		ca := &rotator.KeyPairArtifacts{Cert: a.next, Key: a.nextKey, CertPEM: encodeCerts(a.next), KeyPEM: nextKeyPEM}
		crt, key, err := is.CreateCertPEM(ca, now.Add(-backdate), now.Add(r.ServingValidity))
		if err != nil {
			return nil, fmt.Errorf("creating a serving certificate signed by the next CA: %w", err)
		}
		out[CACertKey] = encodeCerts(append([]*x509.Certificate{a.next, a.signing}, a.retired...)...)
		out[CAKeyKey] = nextKeyPEM
		out[corev1.TLSCertKey], out[corev1.TLSPrivateKeyKey] = crt, key
		delete(out, NextCAKeyKey)
	default:
		return nil, fmt.Errorf("no change to apply for step %q", s)
	}
	return out, nil
}

package certs

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// parseCerts decodes every CERTIFICATE block of PEM data, in order.
func parseCerts(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing certificate %d: %w", len(out)+1, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return out, nil
}

// encodeCerts is the PEM bundle of certs, in order.
func encodeCerts(certs ...*x509.Certificate) []byte {
	var buf bytes.Buffer
	for _, c := range certs {
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
	}
	return buf.Bytes()
}

// bundleContains reports whether the PEM bundle holds cert.
func bundleContains(bundle []byte, cert *x509.Certificate) bool {
	certs, err := parseCerts(bundle)
	if err != nil {
		return false
	}
	for _, c := range certs {
		if c.Equal(cert) {
			return true
		}
	}
	return false
}

// verifyWith checks that leaf, as a server certificate, chains to one of
// the certificates of the PEM bundle at time at, through the intermediates
// the server presents after it: what the API server checks when it calls
// the webhook.
func verifyWith(bundle []byte, leaf *x509.Certificate, at time.Time, intermediates ...*x509.Certificate) error {
	if len(bundle) == 0 {
		return errors.New("the caBundle is empty")
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		return errors.New("the caBundle holds no PEM certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range intermediates {
		inter.AddCert(c)
	}
	_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

package certs

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// Keys of the self-managed Secret. cert-controller writes the first four;
// the rollover adds NextCAKeyKey while a new CA is trusted but does not
// sign yet.
const (
	CACertKey    = "ca.crt"
	CAKeyKey     = "ca.key"
	NextCAKeyKey = "ca-next.key"
)

// authorities is what the Secret's ca.crt holds. cert-controller signs
// with its first certificate, whose key is ca.key, and injects the whole
// of ca.crt into the webhook configurations: every certificate in it is
// trusted by the API server.
type authorities struct {
	// signing signs the serving certificate.
	signing *x509.Certificate
	// next is trusted and will sign once every API server trusts it; its
	// key is ca-next.key. Nil outside a rollover.
	next *x509.Certificate
	// nextKey is next's key.
	nextKey *rsa.PrivateKey
	// retired signed serving certificates before and stays trusted until
	// it expires.
	retired []*x509.Certificate
	// orphanKey: ca-next.key matches no certificate of ca.crt, because
	// cert-controller replaced the CA (a rollover that could not finish).
	orphanKey bool
}

// readAuthorities reads the CAs of the Secret's data. An error means that
// cert-controller has not written a CA yet, or that ca.crt is not one it
// could use; it replaces such a CA itself.
func readAuthorities(data map[string][]byte) (authorities, error) {
	certs, err := parseCerts(data[CACertKey])
	if err != nil {
		return authorities{}, fmt.Errorf("%s: %w", CACertKey, err)
	}
	a := authorities{signing: certs[0]}
	if pemKey := data[NextCAKeyKey]; len(pemKey) > 0 {
		if a.nextKey, err = parseRSAKey(pemKey); err != nil {
			return authorities{}, fmt.Errorf("%s: %w", NextCAKeyKey, err)
		}
	}
	for _, c := range certs[1:] {
		if pub, ok := c.PublicKey.(*rsa.PublicKey); ok && a.nextKey != nil && a.next == nil && pub.Equal(&a.nextKey.PublicKey) {
			a.next = c
			continue
		}
		a.retired = append(a.retired, c)
	}
	a.orphanKey = a.nextKey != nil && a.next == nil
	return a, nil
}

// parseRSAKey decodes a PKCS #1 RSA key, the form cert-controller writes.
func parseRSAKey(data []byte) (*rsa.PrivateKey, error) {
	b, _ := pem.Decode(data)
	if b == nil {
		return nil, errors.New("no PEM key")
	}
	return x509.ParsePKCS1PrivateKey(b.Bytes)
}

// trusted is every certificate of ca.crt, the signing one first.
func (a authorities) trusted() []*x509.Certificate {
	out := append([]*x509.Certificate{a.signing}, a.retired...)
	if a.next != nil {
		out = append(out, a.next)
	}
	return out
}

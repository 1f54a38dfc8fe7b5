package certs

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// Ready is the readiness check: a certificate is loaded and, self-managed
// or cert-manager, every webhook of both configurations trusts it (the
// certificate the server presents chains to a CA of each caBundle). The
// caBundles are read live (liveBundles), not from the manager's cache: a
// replica is not ready before the CA is injected (by this webhook or by
// cert-manager's cainjector), nor while the caBundles it last read are
// more than a bounded time old. Files mode checks no caBundle: someone
// else injects the CA, into configurations this webhook is not told of.
func (s *Serving) Ready(req *http.Request) error {
	c := s.loader.Current()
	if c == nil {
		return fmt.Errorf("no serving certificate loaded from %s yet", s.cfg.Dir)
	}
	if s.cfg.Mode == Files {
		return nil
	}
	chain, err := chainOf(c)
	if err != nil {
		return err
	}
	now := time.Now()
	bundles, err := s.bundles.read(req.Context(), now)
	if err != nil {
		return fmt.Errorf("checking that the CA is injected: %w", err)
	}
	return untrusted(chain, bundles, now)
}

// untrusted names, in order, each webhook whose caBundle does not verify
// chain (the leaf, then the intermediates the server presents) at now.
func untrusted(chain []*x509.Certificate, bundles map[string][]byte, now time.Time) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(bundles)) {
		if err := verifyWith(bundles[name], chain[0], now, chain[1:]...); err != nil {
			errs = append(errs, fmt.Errorf("%s does not trust the serving certificate (the CA is not injected yet): %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// chainOf parses the certificates a server presents with c: the leaf
// first.
func chainOf(c *tls.Certificate) ([]*x509.Certificate, error) {
	leaf, err := leafOf(c)
	if err != nil {
		return nil, err
	}
	out := []*x509.Certificate{leaf}
	for i, der := range c.Certificate[min(1, len(c.Certificate)):] {
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("parsing certificate %d of the served chain: %w", i+2, err)
		}
		out = append(out, cert)
	}
	return out, nil
}

package certs

import (
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"
)

// Ready is the readiness check: a certificate is loaded and,
// self-managed, every webhook of both configurations trusts it.
func (s *Serving) Ready(req *http.Request) error {
	c := s.loader.Current()
	if c == nil {
		return fmt.Errorf("no serving certificate loaded from %s yet", s.cfg.Dir)
	}
	if s.cfg.Mode != SelfManaged {
		return nil
	}
	leaf, err := leafOf(c)
	if err != nil {
		return err
	}
	bundles, err := caBundles(req.Context(), s.reader, s.cfg.MutatingConfiguration, s.cfg.ValidatingConfiguration)
	if err != nil {
		return fmt.Errorf("checking that the CA is injected: %w", err)
	}
	return untrusted(leaf, bundles, time.Now())
}

// untrusted names, in order, each webhook whose caBundle does not verify
// leaf at now.
func untrusted(leaf *x509.Certificate, bundles map[string][]byte, now time.Time) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(bundles)) {
		if err := verifyWith(bundles[name], leaf, now); err != nil {
			errs = append(errs, fmt.Errorf("%s does not trust the serving certificate (the CA is not injected yet): %w", name, err))
		}
	}
	return errors.Join(errs...)
}

package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"

	"github.com/sluice-data/sluice/webhook/metrics"
)

// File names in the certificate directory, as in a kubernetes.io/tls
// Secret.
const (
	CertFile = "tls.crt"
	KeyFile  = "tls.key"
)

// Loader presents the certificate in a directory through
// controller-runtime's certwatcher, which reloads it when the files change
// (an fsnotify watch, and a read every 10 seconds besides). Unlike the
// webhook server's own watcher, which fails to start without the files, it
// waits for them: until they appear, TLS handshakes fail and Current is
// nil. Start it with the manager (it is a Runnable).
type Loader struct {
	dir     string
	poll    time.Duration
	watcher atomic.Pointer[certwatcher.CertWatcher]
}

// NewLoader returns a Loader of dir's tls.crt and tls.key.
func NewLoader(dir string) *Loader { return &Loader{dir: dir, poll: 250 * time.Millisecond} }

// Start waits for a valid certificate and key in the directory, then
// watches them until ctx ends.
func (l *Loader) Start(ctx context.Context) error {
	log := ctrl.LoggerFrom(ctx).WithName("serving-certificate").WithValues("dir", l.dir)
	log.Info("waiting for the serving certificate")
	var w *certwatcher.CertWatcher
	err := wait.PollUntilContextCancel(ctx, l.poll, true, func(context.Context) (bool, error) {
		var err error
		w, err = certwatcher.New(filepath.Join(l.dir, CertFile), filepath.Join(l.dir, KeyFile))
		return err == nil, nil
	})
	if err != nil {
		return nil // stopped before a certificate came
	}
	w.RegisterCallback(func(c tls.Certificate) {
		if leaf, err := leafOf(&c); err == nil {
			metrics.ServingCertificateExpiry.Set(float64(leaf.NotAfter.Unix()))
			log.Info("serving certificate loaded", "serial", leaf.SerialNumber, "issuer", leaf.Issuer.String(), "notAfter", leaf.NotAfter)
		}
	})
	l.watcher.Store(w)
	return w.Start(ctx)
}

// NeedLeaderElection is false: every replica serves.
func (l *Loader) NeedLeaderElection() bool { return false }

// GetCertificate is the server's tls.Config.GetCertificate.
func (l *Loader) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := l.Current(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("no serving certificate loaded from %s yet", l.dir)
}

// Current is the certificate being presented, nil before the first one.
func (l *Loader) Current() *tls.Certificate {
	w := l.watcher.Load()
	if w == nil {
		return nil
	}
	c, _ := w.GetCertificate(nil)
	return c
}

// leafOf returns a key pair's certificate, parsed.
func leafOf(c *tls.Certificate) (*x509.Certificate, error) {
	if c.Leaf != nil {
		return c.Leaf, nil
	}
	if len(c.Certificate) == 0 {
		return nil, errors.New("empty certificate chain")
	}
	return x509.ParseCertificate(c.Certificate[0])
}

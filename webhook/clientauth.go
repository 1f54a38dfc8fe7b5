package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// clientAuth is the TLS side of --client-ca-file and --client-names: the
// webhook server requires of every caller a client certificate that
// chains to one of the file's CAs (for client authentication) and, with
// names, whose common name or one of whose DNS names is among them; any
// other caller fails the TLS handshake. The file is read again when its
// modification time or size changes (a mounted Secret or ConfigMap is
// replaced in place), so a rotated CA needs no restart; a file that no
// longer parses keeps the CAs read last.
//
// The chain is verified in VerifyConnection, as crypto/tls does for
// RequireAndVerifyClientCert, against the CAs read last: the server's
// tls.Config is never changed once serving, and it names no CAs in its
// certificate request (a client would leave out a certificate of a CA not
// named, and the names would be stale after a rotation).
type clientAuth struct {
	file  string
	names []string

	mu    sync.Mutex
	stamp fileStamp
	pool  *x509.CertPool
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// newClientAuth reads the CAs of file; an unreadable file, or one without
// a PEM certificate, is an error.
func newClientAuth(file string, names []string) (*clientAuth, error) {
	a := &clientAuth{file: file, names: names}
	if err := a.reload(); err != nil {
		return nil, err
	}
	return a, nil
}

// reload reads the file if it changed since it was last read. Call with
// a.mu held (or before the server starts).
func (a *clientAuth) reload() error {
	fi, err := os.Stat(a.file)
	if err != nil {
		return fmt.Errorf("--client-ca-file: %w", err)
	}
	stamp := fileStamp{mod: fi.ModTime(), size: fi.Size()}
	if a.pool != nil && stamp == a.stamp {
		return nil
	}
	data, err := os.ReadFile(a.file)
	if err != nil {
		return fmt.Errorf("--client-ca-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return fmt.Errorf("--client-ca-file %s: no PEM certificate in it", a.file)
	}
	a.stamp, a.pool = stamp, pool
	return nil
}

// current returns the CAs read last, after reading the file again if it
// changed.
func (a *clientAuth) current() *x509.CertPool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.reload(); err != nil {
		ctrl.Log.WithName("webhook").Error(err, "keeping the client CAs read last")
	}
	return a.pool
}

// TLSOption makes the server require a client certificate and verify it.
func (a *clientAuth) TLSOption(c *tls.Config) {
	c.ClientAuth = tls.RequireAnyClientCert
	c.VerifyConnection = a.verify
}

// verify accepts a client certificate that chains to the CAs and, with
// a.names, whose common name or one of whose DNS names is one of them.
func (a *clientAuth) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("no client certificate")
	}
	leaf := cs.PeerCertificates[0]
	intermediates := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		intermediates.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{
		Roots: a.current(), Intermediates: intermediates, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return fmt.Errorf("client certificate %q: %w", leaf.Subject.CommonName, err)
	}
	if len(a.names) == 0 || slices.Contains(a.names, leaf.Subject.CommonName) ||
		slices.ContainsFunc(leaf.DNSNames, func(n string) bool { return slices.Contains(a.names, n) }) {
		return nil
	}
	return fmt.Errorf("client certificate %q (DNS names %v) is not one of --client-names %v", leaf.Subject.CommonName, leaf.DNSNames, a.names)
}

// listening is the webhook server's readiness with client certificates
// required: its port accepts connections. (controller-runtime's
// StartedChecker completes a TLS handshake, which a caller without a
// client certificate cannot.)
func listening(host string, port int) healthz.Checker {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	return func(*http.Request) error {
		conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			return fmt.Errorf("webhook server is not reachable: %w", err)
		}
		return conn.Close()
	}
}

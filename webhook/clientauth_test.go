package webhook

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestClientCAFileIsReread: a CA written over the --client-ca-file is
// trusted from the next handshake on, and the old one no longer is; a
// file that stops parsing keeps the CAs read last. A name outside
// --client-names is refused whatever signed it.
func TestClientCAFileIsReread(t *testing.T) {
	dir := t.TempDir()
	oldCA, newCA := mustCA(t, "old"), mustCA(t, "new")
	file := filepath.Join(dir, "ca.crt")
	writeAt(t, file, oldCA.PEM, time.Now().Add(-time.Hour))
	auth, err := newClientAuth(file, []string{"apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{}
	auth.TLSOption(srv.TLS)
	srv.StartTLS()
	defer srv.Close()
	call := func(ca *testenv.CA, name string) error {
		cert, err := ca.IssueClient(t.TempDir(), name)
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.LoadX509KeyPair(cert.CertFile, cert.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		c := srv.Client()
		tr := c.Transport.(*http.Transport).Clone()
		tr.TLSClientConfig.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
		c.Transport = tr
		defer tr.CloseIdleConnections()
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}

	for _, tc := range []struct {
		step   string
		ca     *testenv.CA
		name   string
		wantOK bool
	}{
		{"the CA read at start", oldCA, "apiserver", true},
		{"another CA", newCA, "apiserver", false},
		{"the right CA, a name not allowed", oldCA, "intruder", false},
	} {
		if err := call(tc.ca, tc.name); (err == nil) != tc.wantOK {
			t.Errorf("%s: err %v, want ok %v", tc.step, err, tc.wantOK)
		}
	}

	writeAt(t, file, newCA.PEM, time.Now())
	if err := call(newCA, "apiserver"); err != nil {
		t.Errorf("the rotated CA: %v", err)
	}
	if err := call(oldCA, "apiserver"); err == nil || !strings.Contains(err.Error(), "tls") {
		t.Errorf("the replaced CA: %v, want a TLS failure", err)
	}

	writeAt(t, file, []byte("not a certificate"), time.Now().Add(time.Hour))
	if err := call(newCA, "apiserver"); err != nil {
		t.Errorf("after a broken file, the CA read last: %v", err)
	}
}

func TestClientCAFileMustParse(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ca.crt")
	if _, err := newClientAuth(file, nil); err == nil || !strings.Contains(err.Error(), "--client-ca-file") {
		t.Errorf("a missing file: %v", err)
	}
	writeAt(t, file, []byte("junk"), time.Now())
	if _, err := newClientAuth(file, nil); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a file without a certificate: %v", err)
	}
}

func mustCA(t *testing.T, cn string) *testenv.CA {
	t.Helper()
	ca, err := testenv.NewCA(cn)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// writeAt writes data to path with modification time mod, so that a
// rewrite within the file system's time granularity is still seen.
func writeAt(t *testing.T, path string, data []byte, mod time.Time) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func TestClientNamesNeedAClientCAFile(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--client-names=kube-apiserver"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--client-names needs --client-ca-file") {
		t.Errorf("--client-names alone: %v", err)
	}
}

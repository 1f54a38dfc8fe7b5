package webhook_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// servedSerial returns the serial number of the certificate the webhook
// server presents.
func servedSerial(t *testing.T) string {
	t.Helper()
	wi := env.Webhook()
	addr := net.JoinHostPort(wi.LocalServingHost, strconv.Itoa(wi.LocalServingPort))
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the served certificate only
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

func writeSelfSigned(t *testing.T, dir string, serial int64) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "sluice-webhook"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	write(t, filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestCertificatesAreHotReloaded replaces the serving certificate in the
// certificate directory and checks that the running server presents the
// new one without a restart; then it restores the original.
func TestCertificatesAreHotReloaded(t *testing.T) {
	dir := env.Webhook().LocalServingCertDir
	crt, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := os.ReadFile(filepath.Join(dir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	original := servedSerial(t)
	t.Cleanup(func() {
		write(t, filepath.Join(dir, "tls.key"), key)
		write(t, filepath.Join(dir, "tls.crt"), crt)
		waitFor(t, 20*time.Second, "original certificate served again", func() bool { return servedSerial(t) == original })
	})
	writeSelfSigned(t, dir, 4242)
	took := waitFor(t, 20*time.Second, "new certificate served", func() bool { return servedSerial(t) == "4242" })
	t.Logf("new certificate served after %v", took)
}

// TestMetricsRecordAdmissions checks that admissions and policy
// evaluations are counted in the Prometheus registry the manager serves.
func TestMetricsRecordAdmissions(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "metrics", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	before := counter(t, "sluice_webhook_decisions_total", map[string]string{"webhook": "mutating", "outcome": "mutated"})
	pod := datasetPod("m", serverful, "metrics")
	pod.Namespace = ns
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		t.Fatal(err)
	}
	if after := counter(t, "sluice_webhook_decisions_total", map[string]string{"webhook": "mutating", "outcome": "mutated"}); after != before+1 {
		t.Fatalf("mutated decisions %v -> %v, want one more", before, after)
	}
	if n := histogramCount(t, "sluice_webhook_admission_duration_seconds"); n == 0 {
		t.Fatal("no admission latency observed")
	}
}

func families(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

func counter(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	f, ok := families(t)[name]
	if !ok {
		return 0
	}
metrics:
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
				continue metrics
			}
		}
		return m.GetCounter().GetValue()
	}
	return 0
}

func histogramCount(t *testing.T, name string) uint64 {
	t.Helper()
	var n uint64
	if f, ok := families(t)[name]; ok {
		for _, m := range f.GetMetric() {
			n += m.GetHistogram().GetSampleCount()
		}
	}
	return n
}

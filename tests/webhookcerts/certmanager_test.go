package webhookcerts_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/webhook/certs"
)

// TestCertManagerMode runs a replica in cert-manager mode against
// cert-manager's CRDs, with the test doing cert-manager's part (the
// Certificate's status, the Secret) and the kubelet's (the Secret's files
// in the certificate directory; the chart mounts it there). No
// cert-manager controller runs here: its controller and cainjector are
// separate Go modules that this module does not build.
//
// The replica is not ready while no certificate is in its directory, and
// reports the Certificate's readiness as it changes: the gauge
// sluice_webhook_certificate_ready and a log line naming the reason when
// it is not Ready (while the certificate it has keeps serving).
func TestCertManagerMode(t *testing.T) {
	ns := env.Namespace(t)
	c := certManagerClient(t)
	ctx := context.Background()
	cert := &cmapi.Certificate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sluice-webhook"},
		Spec: cmapi.CertificateSpec{
			SecretName: "sluice-webhook-cert", DNSNames: []string{"localhost"},
			IssuerRef: cmmeta.IssuerReference{Name: "sluice-selfsigned", Kind: "Issuer", Group: "cert-manager.io"},
		},
	}
	if err := c.Create(ctx, cert); err != nil {
		t.Fatal(err)
	}
	r := startReplica(t, "a", ns, replicaOptions{metrics: true, env: map[string]string{
		certs.EnvMode: string(certs.CertManager), certs.EnvCertificate: cert.Name,
	}})
	label := ns + "/" + cert.Name

	// Issued by nobody yet.
	waitFor(t, 60*time.Second, "the Certificate reported not Ready", func() error {
		return r.gauge("sluice_webhook_certificate_ready", label, 0)
	})
	r.waitLog(t, `"the webhook's cert-manager Certificate is not Ready"`, `"reason":"NoReadyCondition"`)
	if err := r.certificateCheck(); err == nil || !strings.Contains(err.Error(), "no serving certificate loaded") {
		t.Fatalf("ready without a certificate: /readyz/certificate says %v", err)
	}

	// cert-manager issues it; the kubelet projects the Secret.
	issuer := &rotator.CertRotator{CAName: "sluice-selfsigned", DNSName: "localhost", ExtKeyUsages: &[]x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	ca, err := issuer.CreateCACert(time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	first := issue(t, c, r, issuer, ca, cert)
	setReady(t, c, cert, cmmeta.ConditionTrue, "Ready", "Certificate is up to date and has not expired")
	waitFor(t, 30*time.Second, "ready, presenting the issued certificate", func() error {
		if err := r.readyz(); err != nil {
			return err
		}
		if served := r.served(); served == nil || !served.Equal(first) {
			return errors.New("the issued certificate is not presented")
		}
		return r.gauge("sluice_webhook_certificate_ready", label, 1)
	})
	if err := r.gauge("sluice_webhook_serving_certificate_expiry_timestamp_seconds", "", float64(first.NotAfter.Unix())); err != nil {
		t.Error(err)
	}

	// Renewal: not Ready while it is issued; the current certificate
	// keeps serving; then the renewed one is presented.
	setReady(t, c, cert, cmmeta.ConditionFalse, "Issuing", "Renewing certificate as renewal was scheduled")
	waitFor(t, 30*time.Second, "the renewal reported", func() error { return r.gauge("sluice_webhook_certificate_ready", label, 0) })
	r.waitLog(t, `"reason":"Issuing"`, `"message":"Renewing certificate as renewal was scheduled"`)
	if err := r.readyz(); err != nil {
		t.Fatalf("not ready while the current certificate still serves: %v", err)
	}
	renewed := issue(t, c, r, issuer, ca, cert)
	setReady(t, c, cert, cmmeta.ConditionTrue, "Ready", "Certificate is up to date and has not expired")
	waitFor(t, 30*time.Second, "the renewed certificate presented", func() error {
		if served := r.served(); served == nil || !served.Equal(renewed) {
			return errors.New("the renewed certificate is not presented")
		}
		return r.gauge("sluice_webhook_certificate_ready", label, 1)
	})

	// Deleted: nothing renews the serving certificate any more.
	if err := c.Delete(ctx, cert); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the deletion reported", func() error { return r.gauge("sluice_webhook_certificate_ready", label, 0) })
	r.waitLog(t, `"the webhook's cert-manager Certificate does not exist; nothing renews the serving certificate"`)
}

// certManagerClient reads and writes cert-manager's kinds.
func certManagerClient(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cmapi.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// issue does what cert-manager and the kubelet do when the Certificate is
// issued: writes its Secret (kubernetes.io/tls, with ca.crt) and the
// Secret's files into the replica's certificate directory. It returns the
// new certificate.
func issue(t *testing.T, c client.Client, r *replica, is *rotator.CertRotator, ca *rotator.KeyPairArtifacts, cert *cmapi.Certificate) *x509.Certificate {
	t.Helper()
	crt, key, err := is.CreateCertPEM(ca, time.Now().Add(-time.Hour), time.Now().Add(12*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cert.Namespace, Name: cert.Spec.SecretName}}
	data := map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key, "ca.crt": ca.CertPEM}
	ctx := context.Background()
	if err := c.Get(ctx, client.ObjectKeyFromObject(secret), secret); err == nil {
		secret.Data = data
		err = c.Update(ctx, secret)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		secret.Type, secret.Data = corev1.SecretTypeTLS, data
		if err := c.Create(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	if err := certs.WriteDir(r.certDir, map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key, "ca.crt": ca.CertPEM}); err != nil {
		t.Fatal(err)
	}
	parsed, err := parsePEM(crt)
	if err != nil {
		t.Fatal(err)
	}
	return parsed[0]
}

// setReady writes the Certificate's Ready condition, as cert-manager does.
func setReady(t *testing.T, c client.Client, cert *cmapi.Certificate, status cmmeta.ConditionStatus, reason, message string) {
	t.Helper()
	ctx := context.Background()
	if err := c.Get(ctx, client.ObjectKeyFromObject(cert), cert); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	cert.Status.Conditions = []cmapi.CertificateCondition{{
		Type: cmapi.CertificateConditionReady, Status: status, Reason: reason, Message: message,
		LastTransitionTime: &now, ObservedGeneration: cert.Generation,
	}}
	if err := c.Status().Update(ctx, cert); err != nil {
		t.Fatal(err)
	}
}

// gauge checks the value of a gauge whose label certificate is
// certificate ("": a gauge without labels).
func (r *replica) gauge(name, certificate string, want float64) error {
	resp, err := http.Get("http://" + r.metrics + "/metrics")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return err
	}
	for _, m := range fams[name].GetMetric() {
		got := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "certificate" {
				got = l.GetValue()
			}
		}
		if got != certificate {
			continue
		}
		if v := m.GetGauge().GetValue(); v != want {
			return fmt.Errorf("%s{certificate=%q} = %v, want %v", name, certificate, v, want)
		}
		return nil
	}
	return fmt.Errorf("no %s{certificate=%q}", name, certificate)
}

// waitLog waits for a line of the replica's log holding every part.
func (r *replica) waitLog(t *testing.T, parts ...string) {
	t.Helper()
	waitFor(t, 30*time.Second, fmt.Sprintf("a log line with %q", parts), func() error {
	lines:
		for _, line := range strings.Split(r.out.String(), "\n") {
			for _, p := range parts {
				if !strings.Contains(line, p) {
					continue lines
				}
			}
			return nil
		}
		return errors.New("not logged")
	})
}

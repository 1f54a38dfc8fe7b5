package webhookcerts_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"helm.sh/helm/v3/pkg/chart/loader"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/tests/support/certmanager"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook/certs"
)

// TestCertManagerIssuesTheChartsCertificates runs cert-manager's own
// controller and cainjector (tests/support/certmanager) and a replica in
// cert-manager mode, with what the platform chart renders in cert-manager
// mode for the test's namespace: the self-signed Issuer, the CA
// Certificate, the CA Issuer, the serving Certificate and both webhook
// configurations. Two things differ from the chart, because the API server
// calls the replica by URL here, not through a Service: the configurations'
// clientConfig is a URL (and their names are the test's), and the serving
// Certificate also names localhost, the host in that URL, which the API
// server verifies.
//
// cert-manager issues the chain: the serving certificate is signed by the
// chart's CA. The cainjector injects that CA into every webhook of both
// configurations. The kubelet's part, projecting the Secret into the
// replica's certificate directory, is played by the test, which copies
// the Secret's data there with certs.WriteDir (the kubelet's atomic
// write). The replica is not ready before its files are there; then it
// is ready, presents the issued certificate, reports the Certificate Ready
// (sluice_webhook_certificate_ready 1), and the API server, trusting the
// injected CA, has it validate a Dataset and mutate a labelled Pod.
//
// Renewal, triggered as `cmctl renew` does (the Issuing condition): a new
// serving certificate under the same CA, so the injected caBundles do not
// change, and once projected the replica presents it and admits again.
// Deleted, the Certificate is reported gone (gauge 0).
func TestCertManagerIssuesTheChartsCertificates(t *testing.T) {
	cm := startCertManager(t)
	ns := env.Namespace(t)
	c := certManagerClient(t)
	ctx := context.Background()
	chart := renderCertManagerMode(t, ns, map[string]any{"certManager": map[string]any{"enabled": true}})
	serving := chart.certificate(t, "sluice-webhook")
	ca := chart.certificate(t, "sluice-webhook-ca")
	if got := serving.Spec.IssuerRef.Name; got != "sluice-webhook-ca" {
		t.Fatalf("the chart's serving Certificate is issued by %q, want its CA Issuer sluice-webhook-ca", got)
	}
	serving.Spec.DNSNames = append(serving.Spec.DNSNames, "localhost")

	cfgs := newConfigurations(ns)
	r := startReplica(t, "a", ns, replicaOptions{metrics: true, env: map[string]string{
		certs.EnvMode: string(certs.CertManager), certs.EnvCertificate: serving.Name,
		certs.EnvMutatingConfiguration: cfgs.mutating, certs.EnvValidatingConfiguration: cfgs.validating,
	}})
	chart.createConfigurations(t, cfgs, fmt.Sprintf("https://localhost:%d", port(r.addr)))
	for _, o := range chart.certManager {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("creating the chart's %T %s: %v", o, o.GetName(), err)
		}
	}
	label := ns + "/" + serving.Name

	// cert-manager issues the chain.
	for _, name := range []string{ca.Name, serving.Name} {
		waitCertManager(t, cm, 90*time.Second, "Certificate "+name+" Ready", func() error {
			return certificateReady(ctx, c, ns, name)
		})
	}
	issued := readIssued(t, c, ns, serving.Spec.SecretName)
	caSecret := readIssued(t, c, ns, ca.Spec.SecretName)
	if !bytes.Equal(issued.caBundle, caSecret.leafPEM) {
		t.Fatalf("the serving Secret's ca.crt is not the chart's CA (Secret %s's tls.crt):\n%s", ca.Spec.SecretName, issued.caBundle)
	}
	for _, name := range serving.Spec.DNSNames {
		if err := verifies(issued.caBundle, issued.leaf, name); err != nil {
			t.Errorf("the issued certificate for %s: %v", name, err)
		}
	}

	// The cainjector injects the CA into every webhook of both
	// configurations.
	waitCertManager(t, cm, 60*time.Second, "the CA injected into both configurations", func() error {
		return injectedInBoth(ctx, cfgs, issued.caBundle)
	})

	// Before the kubelet has projected the Secret the replica has nothing
	// to present.
	if err := r.certificateCheck(); err == nil || !strings.Contains(err.Error(), "no serving certificate loaded") {
		t.Fatalf("ready without a certificate: /readyz/certificate says %v", err)
	}
	project(t, c, ns, serving.Spec.SecretName, r.certDir)
	waitFor(t, 30*time.Second, "ready, presenting the issued certificate, the Certificate reported Ready", func() error {
		if err := r.exited(); err != nil {
			return err
		}
		if err := r.readyz(); err != nil {
			return err
		}
		if served := r.served(); served == nil || !served.Equal(issued.leaf) {
			return errors.New("the issued certificate is not presented")
		}
		return r.gauge("sluice_webhook_certificate_ready", label, 1)
	})
	if err := r.gauge("sluice_webhook_serving_certificate_expiry_timestamp_seconds", "", float64(issued.leaf.NotAfter.Unix())); err != nil {
		t.Error(err)
	}
	podNS := env.Namespace(t)
	seedDataset(t, podNS, "imagenet") // the validating webhook, failurePolicy Fail
	if err := createMutatedOnceSeen(ctx, t, labelledPod(podNS, "before-renewal", "imagenet"), "imagenet"); err != nil {
		t.Fatal(err)
	}

	// Renewal: a new key and certificate under the same CA.
	renew(t, c, ns, serving.Name)
	var renewed issuedSecret
	waitCertManager(t, cm, 60*time.Second, "the renewed certificate issued and the Certificate Ready", func() error {
		s, err := readSecretData(ctx, c, ns, serving.Spec.SecretName)
		if err != nil {
			return err
		}
		if s.leaf.Equal(issued.leaf) {
			return errors.New("the Secret still holds the first certificate")
		}
		renewed = s
		return certificateReady(ctx, c, ns, serving.Name)
	})
	if !bytes.Equal(renewed.caBundle, issued.caBundle) {
		t.Errorf("renewing the serving certificate changed the CA in its Secret")
	}
	if err := injectedInBoth(ctx, cfgs, issued.caBundle); err != nil {
		t.Errorf("after the renewal: %v", err)
	}
	project(t, c, ns, serving.Spec.SecretName, r.certDir)
	waitFor(t, 30*time.Second, "the renewed certificate presented", func() error {
		if served := r.served(); served == nil || !served.Equal(renewed.leaf) {
			return errors.New("the renewed certificate is not presented")
		}
		return r.gauge("sluice_webhook_certificate_ready", label, 1)
	})
	if err := createMutated(ctx, env.Client, labelledPod(podNS, "after-renewal", "imagenet"), "imagenet"); err != nil {
		t.Fatal(err)
	}

	// Deleted: nothing renews the serving certificate any more.
	if err := c.Delete(ctx, serving); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the deletion reported", func() error { return r.gauge("sluice_webhook_certificate_ready", label, 0) })
	r.waitLog(t, `"the webhook's cert-manager Certificate does not exist; nothing renews the serving certificate"`)
}

// TestCertManagerCertificateNotReadyReported installs the chart's serving
// Certificate for an issuer of the user's (certManager.issuerRef) that does
// not exist, with cert-manager's own controller running. cert-manager
// requests the certificate, the request waits for the missing
// ClusterIssuer, and the Certificate stays not Ready: the replica reports
// it (gauge 0, a log line with cert-manager's reason and message) and is
// not ready, having no certificate to present. Once the ClusterIssuer
// exists cert-manager issues the certificate and the replica reports the
// Certificate Ready.
func TestCertManagerCertificateNotReadyReported(t *testing.T) {
	cm := startCertManager(t)
	ns := env.Namespace(t)
	c := certManagerClient(t)
	ctx := context.Background()
	issuer := ns + "-platform-ca" // cluster-scoped: named for the test
	chart := renderCertManagerMode(t, ns, map[string]any{"certManager": map[string]any{
		"enabled": true, "issuerRef": map[string]any{"name": issuer, "kind": "ClusterIssuer"},
	}})
	if len(chart.certManager) != 1 {
		t.Fatalf("with an issuerRef the chart renders %d cert-manager objects, want the serving Certificate alone", len(chart.certManager))
	}
	serving := chart.certificate(t, "sluice-webhook")
	r := startReplica(t, "a", ns, replicaOptions{metrics: true, env: map[string]string{
		certs.EnvMode: string(certs.CertManager), certs.EnvCertificate: serving.Name,
	}})
	if err := c.Create(ctx, serving); err != nil {
		t.Fatal(err)
	}
	label := ns + "/" + serving.Name

	// cert-manager requests the certificate; the request is pending on
	// the missing issuer.
	waitCertManager(t, cm, 60*time.Second, "a CertificateRequest pending on the missing ClusterIssuer", func() error {
		reqs := &cmapi.CertificateRequestList{}
		if err := c.List(ctx, reqs, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, req := range reqs.Items {
			if req.Annotations[cmapi.CertificateNameKey] != serving.Name {
				continue
			}
			for _, cond := range req.Status.Conditions {
				if cond.Type == cmapi.CertificateRequestConditionReady && cond.Status == cmmeta.ConditionFalse &&
					cond.Reason == cmapi.CertificateRequestReasonPending && strings.Contains(cond.Message, "not found") {
					t.Logf("cert-manager: CertificateRequest %s: %s", req.Name, cond.Message)
					return nil
				}
			}
			return fmt.Errorf("CertificateRequest %s: %+v", req.Name, req.Status.Conditions)
		}
		return errors.New("no CertificateRequest for the Certificate")
	})
	var notReady *cmapi.CertificateCondition
	waitCertManager(t, cm, 30*time.Second, "the Certificate not Ready, as cert-manager says", func() error {
		cert := &cmapi.Certificate{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(serving), cert); err != nil {
			return err
		}
		notReady = condition(cert, cmapi.CertificateConditionReady)
		if notReady == nil || notReady.Status != cmmeta.ConditionFalse || notReady.ObservedGeneration != cert.Generation {
			return fmt.Errorf("the Certificate's Ready condition is %+v", notReady)
		}
		return nil
	})
	t.Logf("cert-manager: Certificate %s not Ready: %s: %s", serving.Name, notReady.Reason, notReady.Message)
	waitFor(t, 30*time.Second, "the Certificate reported not Ready", func() error {
		return r.gauge("sluice_webhook_certificate_ready", label, 0)
	})
	r.waitLog(t, `"the webhook's cert-manager Certificate is not Ready"`,
		fmt.Sprintf(`"reason":%q`, notReady.Reason), fmt.Sprintf(`"message":%q`, notReady.Message))
	if err := r.certificateCheck(); err == nil || !strings.Contains(err.Error(), "no serving certificate loaded") {
		t.Fatalf("ready without a certificate: /readyz/certificate says %v", err)
	}

	// The issuer appears: cert-manager issues, the replica reports Ready.
	cluster := &cmapi.ClusterIssuer{
		ObjectMeta: metav1.ObjectMeta{Name: issuer},
		Spec:       cmapi.IssuerSpec{IssuerConfig: cmapi.IssuerConfig{SelfSigned: &cmapi.SelfSignedIssuer{}}},
	}
	if err := c.Create(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), cluster) })
	waitCertManager(t, cm, 90*time.Second, "the Certificate Ready once its issuer exists", func() error {
		return certificateReady(ctx, c, ns, serving.Name)
	})
	waitFor(t, 30*time.Second, "the Certificate reported Ready", func() error {
		return r.gauge("sluice_webhook_certificate_ready", label, 1)
	})
}

// startCertManager runs cert-manager's controller and cainjector against
// the test API server until the test ends (their logs are shown if it
// failed).
func startCertManager(t *testing.T) *certmanager.CertManager {
	t.Helper()
	cm, err := certmanager.Start(kubeconfigPath, t.TempDir(), "kube-system")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cert-manager's logs:\n%s", cm.Logs(40))
		}
		cm.Stop()
	})
	return cm
}

// waitCertManager is waitFor, failing at once if a cert-manager process
// has exited.
func waitCertManager(t *testing.T, cm *certmanager.CertManager, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	start := time.Now()
	waitFor(t, timeout, what, func() error {
		if err := cm.Check(); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		return cond()
	})
	t.Logf("%s after %s", what, time.Since(start).Round(100*time.Millisecond))
}

// certManagerMode is what the platform chart renders in cert-manager mode
// for one namespace: its Issuers and Certificates, in the chart's order,
// and its two webhook configurations.
type certManagerMode struct {
	certManager []client.Object
	mutating    *admissionregistrationv1.MutatingWebhookConfiguration
	validating  *admissionregistrationv1.ValidatingWebhookConfiguration
}

// renderCertManagerMode renders charts/sluice, release "sluice" in
// namespace, with values, as `helm template --kube-version` would for the
// test's API server.
func renderCertManagerMode(t *testing.T, namespace string, values map[string]any) certManagerMode {
	t.Helper()
	ch, err := loader.Load(filepath.Join(testenv.RepoRoot(), "charts", "sluice"))
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	v, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	manifests, err := helm.RenderFor(context.Background(), ch, values, "sluice", namespace, v.GitVersion)
	if err != nil {
		t.Fatalf("rendering the chart: %v", err)
	}
	scheme := certManagerScheme(t)
	decode := func(file string) []client.Object {
		objs, err := sluicescheme.DecodeObjects[client.Object](strings.NewReader(manifests[file]), scheme)
		if err != nil || len(objs) == 0 {
			t.Fatalf("the chart's %s: %d objects, %v", file, len(objs), err)
		}
		return objs
	}
	var out certManagerMode
	for _, o := range decode("templates/webhook/certificate.yaml") {
		switch o.(type) {
		case *cmapi.Issuer, *cmapi.Certificate:
			out.certManager = append(out.certManager, o)
		} // and the webhook's Role to read the Certificate (tests/chart)
	}
	for _, o := range decode("templates/webhook/webhookconfigurations.yaml") {
		switch o := o.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			out.mutating = o
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			out.validating = o
		}
	}
	if out.mutating == nil || out.validating == nil {
		t.Fatal("the chart renders no mutating or no validating webhook configuration")
	}
	return out
}

// certificate returns the chart's Certificate named name.
func (m certManagerMode) certificate(t *testing.T, name string) *cmapi.Certificate {
	t.Helper()
	for _, o := range m.certManager {
		if c, ok := o.(*cmapi.Certificate); ok && c.Name == name {
			return c
		}
	}
	t.Fatalf("the chart renders no Certificate %s", name)
	return nil
}

// createConfigurations creates the chart's configurations under the
// test's names, each webhook calling url instead of the Service, keeping
// the cainjector's annotation; they are deleted when the test ends.
func (m certManagerMode) createConfigurations(t *testing.T, cfgs configurations, url string) {
	t.Helper()
	mutating, validating := m.mutating.DeepCopy(), m.validating.DeepCopy()
	for _, o := range []metav1.Object{mutating, validating} {
		if o.GetAnnotations()["cert-manager.io/inject-ca-from"] == "" {
			t.Fatalf("the chart's %s has no cert-manager.io/inject-ca-from annotation", o.GetName())
		}
	}
	mutating.Name, validating.Name = cfgs.mutating, cfgs.validating
	for i := range mutating.Webhooks {
		mutating.Webhooks[i].ClientConfig = urlConfig(url, mutating.Webhooks[i].ClientConfig)
	}
	for i := range validating.Webhooks {
		validating.Webhooks[i].ClientConfig = urlConfig(url, validating.Webhooks[i].ClientConfig)
	}
	create(t, mutating)
	create(t, validating)
}

// certManagerScheme has Kubernetes' kinds and cert-manager's.
func certManagerScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, cmapi.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return scheme
}

// certManagerClient reads and writes cert-manager's kinds.
func certManagerClient(t *testing.T) client.Client {
	t.Helper()
	c, err := client.New(env.Config, client.Options{Scheme: certManagerScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// condition returns the Certificate's condition of type typ, nil if it has
// none.
func condition(cert *cmapi.Certificate, typ cmapi.CertificateConditionType) *cmapi.CertificateCondition {
	for i := range cert.Status.Conditions {
		if cert.Status.Conditions[i].Type == typ {
			return &cert.Status.Conditions[i]
		}
	}
	return nil
}

// certificateReady is nil once cert-manager has reported the Certificate
// Ready for its current generation.
func certificateReady(ctx context.Context, c client.Client, ns, name string) error {
	cert := &cmapi.Certificate{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cert); err != nil {
		return err
	}
	ready := condition(cert, cmapi.CertificateConditionReady)
	if ready == nil || ready.Status != cmmeta.ConditionTrue || ready.ObservedGeneration != cert.Generation {
		return fmt.Errorf("Certificate %s: Ready is %+v", name, ready)
	}
	return nil
}

// renew asks cert-manager to issue the Certificate again, as `cmctl renew`
// does: it sets the Issuing condition.
func renew(t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cert := &cmapi.Certificate{}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cert); err != nil {
			return err
		}
		now := metav1.Now()
		cert.Status.Conditions = append(cert.Status.Conditions, cmapi.CertificateCondition{
			Type: cmapi.CertificateConditionIssuing, Status: cmmeta.ConditionTrue, Reason: "ManuallyTriggered",
			Message: "Certificate re-issuance manually triggered", LastTransitionTime: &now, ObservedGeneration: cert.Generation,
		})
		return c.Status().Update(context.Background(), cert)
	})
	if err != nil {
		t.Fatalf("triggering the renewal of Certificate %s: %v", name, err)
	}
}

// issuedSecret is what cert-manager wrote into a certificate's Secret.
type issuedSecret struct {
	data     map[string][]byte
	caBundle []byte // ca.crt
	leafPEM  []byte // tls.crt
	leaf     *x509.Certificate
}

func readSecretData(ctx context.Context, c client.Client, ns, name string) (issuedSecret, error) {
	s := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		return issuedSecret{}, err
	}
	for _, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey, certs.CACertKey} {
		if len(s.Data[k]) == 0 {
			return issuedSecret{}, fmt.Errorf("Secret %s has no %s", name, k)
		}
	}
	leaf, err := parsePEM(s.Data[corev1.TLSCertKey])
	if err != nil {
		return issuedSecret{}, fmt.Errorf("Secret %s: tls.crt: %w", name, err)
	}
	return issuedSecret{data: s.Data, caBundle: s.Data[certs.CACertKey], leafPEM: s.Data[corev1.TLSCertKey], leaf: leaf[0]}, nil
}

func readIssued(t *testing.T, c client.Client, ns, name string) issuedSecret {
	t.Helper()
	s, err := readSecretData(context.Background(), c, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// project does the kubelet's part: it writes the Secret's data into the
// replica's certificate directory as the kubelet updates a Secret volume
// (in a cluster the chart mounts the Secret there).
func project(t *testing.T, c client.Client, ns, secret, dir string) {
	t.Helper()
	if err := certs.WriteDir(dir, readIssued(t, c, ns, secret).data); err != nil {
		t.Fatal(err)
	}
}

// verifies checks that leaf chains to the bundle for dnsName.
func verifies(bundle []byte, leaf *x509.Certificate, dnsName string) error {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		return errors.New("the bundle holds no certificate")
	}
	_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: dnsName, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

// injectedInBoth checks that every webhook of both configurations holds
// bundle.
func injectedInBoth(ctx context.Context, cfgs configurations, bundle []byte) error {
	if err := injected(ctx, cfgs.mutatingBundles, bundle); err != nil {
		return err
	}
	return injected(ctx, cfgs.validatingBundles, bundle)
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

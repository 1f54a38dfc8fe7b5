package webhookauth_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook/validating"
)

// TestTheAPIServersReviewsAreAnswered: with --client-ca-file, Pods and
// DataLoads are admitted, mutated and denied through the API server (which
// presents its client certificate) exactly as without it.
func TestTheAPIServersReviewsAreAnswered(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	seed(t, ns, "unbound", datav1alpha1.NotBoundDatasetPhase)
	time.Sleep(500 * time.Millisecond) // the webhook reads from its caches

	pod := datasetPod(ns, "trainer", "imagenet")
	if err := env.Client.Create(testenv.Context(t), pod); err != nil {
		t.Fatalf("a Pod of a bound dataset: %v", err)
	}
	if got := pod.Annotations[datav1alpha1.AnnotationDatasetsInUse]; got != "imagenet" {
		t.Errorf("the Pod was not mutated: annotations %v", pod.Annotations)
	}
	err := env.Client.Create(testenv.Context(t), datasetPod(ns, "late", "unbound"))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule dataset-not-bound") {
		t.Errorf("a Pod of an unbound dataset: %v, want denied naming dataset-not-bound", err)
	}

	if err := env.Client.Create(testenv.Context(t), testobj.DataLoad("first", ns, "imagenet")); err != nil {
		t.Fatalf("the first DataLoad: %v", err)
	}
	err = env.Client.Create(testenv.Context(t), testobj.DataLoad("second", ns, "imagenet"))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "held by DataLoad first") || !strings.Contains(err.Error(), "rule operation-exclusive") {
		t.Errorf("the second DataLoad: %v, want denied naming the holder and operation-exclusive", err)
	}
	if got := operationRef(t, ns, "imagenet"); got != "first" {
		t.Errorf("status.operationRef[DataLoad] = %q, want first", got)
	}
}

// TestForgedReviewsFailTheHandshake (reliability audit M5): a DataLoad
// CREATE review for another namespace's Dataset, posted straight to the
// webhook by a caller without the API server's client certificate (none,
// one from another CA, one from the right CA for another name) is never
// answered, and the Dataset stays unclaimed. The same review with the API
// server's certificate would claim it (the last case), so it is the
// handshake that stops the others.
func TestForgedReviewsFailTheHandshake(t *testing.T) {
	victim := env.Namespace(t)
	seed(t, victim, "imagenet", datav1alpha1.BoundDatasetPhase)
	time.Sleep(500 * time.Millisecond)
	review, err := testobj.CreateReview("DataLoad", "dataloads", testobj.DataLoad("forged", victim, "imagenet"), victim, "forged", "system:serviceaccount:attacker:default")
	if err != nil {
		t.Fatal(err)
	}
	otherCA, err := otherCA.IssueClient(t.TempDir(), clientName)
	if err != nil {
		t.Fatal(err)
	}
	otherName, err := apiserverCA.IssueClient(t.TempDir(), "someone-else")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cert *testenv.ClientCert // nil: no client certificate
		tls  uint16              // the highest TLS version offered; 0: 1.3
	}{
		{"no client certificate", nil, 0},
		{"no client certificate, TLS 1.2", nil, tls.VersionTLS12},
		{"a certificate from another CA", &otherCA, 0},
		{"the right CA, another name", &otherName, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, err := post(t, tc.cert, tc.tls, review)
			if err == nil {
				t.Fatalf("the forged review was answered (HTTP %d)", status)
			}
			if !strings.Contains(err.Error(), "tls:") {
				t.Errorf("the call failed, but not in TLS: %v", err)
			}
			if testing.Verbose() {
				t.Log(err)
			}
		})
	}
	if got := operationRef(t, victim, "imagenet"); got != "" {
		t.Fatalf("a forged review claimed the Dataset: status.operationRef[DataLoad] = %q", got)
	}

	t.Run("the API server's certificate", func(t *testing.T) {
		apiserver := &testenv.ClientCert{CertFile: dir + "/" + clientName + ".crt", KeyFile: dir + "/" + clientName + ".key"}
		status, err := post(t, apiserver, 0, review)
		if err != nil || status != http.StatusOK {
			t.Fatalf("HTTP %d, %v", status, err)
		}
		if got := operationRef(t, victim, "imagenet"); got != "forged" {
			t.Fatalf("status.operationRef[DataLoad] = %q: the review would not have claimed the Dataset anyway", got)
		}
	})
}

// TestTLSDialWithoutACertificateFails: at TLS 1.2 the handshake itself
// fails for a caller without a client certificate (at 1.3 the server's
// refusal arrives after the client's side of the handshake, on the first
// read, as the cases above see it).
func TestTLSDialWithoutACertificateFails(t *testing.T) {
	conn, err := tls.Dial("tcp", addr(), &tls.Config{RootCAs: servingRoots(t), MaxVersion: tls.VersionTLS12})
	if err == nil {
		conn.Close()
		t.Fatal("the handshake succeeded without a client certificate")
	}
}

// post sends review to the validating webhook, presenting cert (if any)
// and offering TLS up to maxVersion (0: the default).
func post(t *testing.T, cert *testenv.ClientCert, maxVersion uint16, review []byte) (int, error) {
	t.Helper()
	cfg := &tls.Config{RootCAs: servingRoots(t), MaxVersion: maxVersion}
	if cert != nil {
		pair, err := tls.LoadX509KeyPair(cert.CertFile, cert.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		// Sent whatever CAs the server names: Go's client would leave out
		// a certificate of a CA the server does not name.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	defer c.CloseIdleConnections()
	resp, err := c.Post("https://"+addr()+validating.Path, "application/json", bytes.NewReader(review))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var answer admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &answer); err != nil || answer.Response == nil {
		t.Fatalf("HTTP %d, not an AdmissionReview: %s", resp.StatusCode, body)
	}
	return resp.StatusCode, nil
}

func addr() string {
	wi := env.Webhook()
	return net.JoinHostPort(wi.LocalServingHost, strconv.Itoa(wi.LocalServingPort))
}

// servingRoots trusts the webhook's serving certificate (envtest's CA).
func servingRoots(t *testing.T) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(env.Webhook().LocalServingCAData) {
		t.Fatal("envtest's serving CA does not parse")
	}
	return pool
}

func seed(t *testing.T, ns, name string, phase datav1alpha1.DatasetPhase) {
	t.Helper()
	if err := testobj.SeedDataset(testenv.Context(t), env.Client, ns, name, phase); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}})
	})
}

func operationRef(t *testing.T, ns, name string) string {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ns, Name: name}, ds); err != nil {
		t.Fatal(err)
	}
	return ds.Status.OperationRef["DataLoad"]
}

// datasetPod is a serverful Pod (data affinity, fail closed) mounting
// claim.
func datasetPod(ns, name, claim string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{datav1alpha1.LabelServerfulInject: "true"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}},
		},
	}
}

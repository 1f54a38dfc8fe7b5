package webhookcerts_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook/certs"
)

// selfManaged is the environment the chart gives a self-managed replica.
func selfManaged(secret string, c configurations) map[string]string {
	return map[string]string{
		certs.EnvMode: string(certs.SelfManaged), certs.EnvSecret: secret, certs.EnvService: "sluice-webhook",
		certs.EnvMutatingConfiguration: c.mutating, certs.EnvValidatingConfiguration: c.validating,
	}
}

// createEmptySecret creates the Secret as the chart does: no data.
func createEmptySecret(t *testing.T, ns, name string) client.ObjectKey {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := env.Client.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return client.ObjectKeyFromObject(s)
}

// written is the CA bundle and serving certificate of the Secret.
type written struct {
	caBundle []byte
	cas      []*x509.Certificate
	leaf     *x509.Certificate
	version  string
}

// readSecret reads what is written in the Secret, an error while it holds
// no CA and certificate.
func readSecret(ctx context.Context, key client.ObjectKey) (written, error) {
	s := &corev1.Secret{}
	if err := env.Client.Get(ctx, key, s); err != nil {
		return written{}, err
	}
	cas, err := parsePEM(s.Data[certs.CACertKey])
	if err != nil {
		return written{}, fmt.Errorf("ca.crt: %w", err)
	}
	pair, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return written{}, fmt.Errorf("tls.crt and tls.key: %w", err)
	}
	return written{caBundle: s.Data[certs.CACertKey], cas: cas, leaf: pair.Leaf, version: s.ResourceVersion}, nil
}

func parsePEM(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for b, rest := pem.Decode(data); b != nil; b, rest = pem.Decode(rest) {
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no PEM certificate")
	}
	return out, nil
}

// trusts checks that leaf chains to a certificate of the PEM bundle now,
// for the name the API server calls the replicas by.
func trusts(bundle []byte, leaf *x509.Certificate) error {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		return fmt.Errorf("the bundle holds no certificate")
	}
	_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	return err
}

// seedDataset seeds a bound Dataset (through the validating webhook,
// which must admit it).
func seedDataset(t *testing.T, ns, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := testobj.SeedDataset(ctx, env.Client, ns, name, datav1alpha1.BoundDatasetPhase); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}})
	})
}

// labelledPod is a Pod the mutating webhook must handle (failurePolicy
// Fail in config/): labelled for Fluid, mounting the dataset's claim.
func labelledPod(ns, name, dataset string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{datav1alpha1.LabelServerfulInject: "true"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: dataset}}}},
		},
	}
}

// createMutatedOnceSeen is createMutated for a Dataset seeded a moment
// ago: while the webhook's cache does not show the new PVC, the webhook
// refuses the Pod asking for a retry (webhook/snapshot cacheLag), and the
// creation is retried for up to 10 s; any other error is returned at once.
func createMutatedOnceSeen(ctx context.Context, t *testing.T, pod *corev1.Pod, dataset string) error {
	t.Helper()
	deadline := time.Now().Add(testenv.Stretch(10 * time.Second))
	for {
		attempt := pod.DeepCopy()
		err := createMutated(ctx, env.Client, attempt, dataset)
		if err == nil || !strings.Contains(err.Error(), "the webhook does not see it yet") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// createMutated creates pod through the API server and checks that the
// webhook mutated it.
func createMutated(ctx context.Context, c client.Client, pod *corev1.Pod, dataset string) error {
	if err := c.Create(ctx, pod); err != nil {
		return err
	}
	if got := pod.Annotations[datav1alpha1.AnnotationDatasetsInUse]; got != dataset {
		return fmt.Errorf("pod %s was admitted unmutated (datasets in use %q)", pod.Name, got)
	}
	return nil
}

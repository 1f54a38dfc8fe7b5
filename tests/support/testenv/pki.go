package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"
)

// CA is a certificate authority for tests that issues client certificates.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA certificate, PEM-encoded.
	PEM []byte
}

// NewCA creates a CA named cn, valid for a day.
func NewCA(cn string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// ClientCert is a client certificate and its key, as PEM files.
type ClientCert struct {
	CertFile, KeyFile string
}

// IssueClient issues a client certificate for cn (also its DNS SAN) and
// writes it and its key into dir as <cn>.crt and <cn>.key.
func (ca *CA) IssueClient(dir, cn string) (ClientCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ClientCert{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return ClientCert{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn}, DNSNames: []string{cn},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return ClientCert{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return ClientCert{}, err
	}
	c := ClientCert{CertFile: filepath.Join(dir, cn+".crt"), KeyFile: filepath.Join(dir, cn+".key")}
	if err := os.WriteFile(c.CertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return ClientCert{}, err
	}
	if err := os.WriteFile(c.KeyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return ClientCert{}, err
	}
	return c, nil
}

// admissionConfig writes, into dir, an admission control configuration
// (kube-apiserver --admission-control-config-file) whose webhook plugins
// present cert to every webhook they call: a kubeconfig whose user "*"
// (the default for every webhook host) has the certificate, as
// Kubernetes' "Authenticate apiservers" describes. It returns the
// configuration's path.
func admissionConfig(dir string, cert ClientCert) (string, error) {
	kubeconfig := filepath.Join(dir, "webhook-kubeconfig.yaml")
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
users:
  - name: "*"
    user:
      client-certificate: %q
      client-key: %q
`, cert.CertFile, cert.KeyFile)
	if err := os.WriteFile(kubeconfig, []byte(kc), 0o600); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "admission-config.yaml")
	ac := fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
  - name: ValidatingAdmissionWebhook
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      kubeConfigFile: %q
  - name: MutatingAdmissionWebhook
    configuration:
      apiVersion: apiserver.config.k8s.io/v1
      kind: WebhookAdmissionConfiguration
      kubeConfigFile: %q
`, kubeconfig, kubeconfig)
	return path, os.WriteFile(path, []byte(ac), 0o600)
}

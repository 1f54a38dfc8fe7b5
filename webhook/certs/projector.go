package certs

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// projector writes the Secret's serving certificate and key into the
// certificate directory whenever they change (self-managed mode), so that
// a replica presents a renewed certificate within moments of its being
// written, not after the kubelet's next sync of a Secret volume.
type projector struct {
	reader client.Reader
	secret types.NamespacedName
	dir    string

	// what was last written
	crt, key []byte
}

// Reconcile projects the Secret; a key pair that does not match (a Secret
// edited by hand half-way) is not written.
func (p *projector) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	secret := &corev1.Secret{}
	if err := p.reader.Get(ctx, p.secret, secret); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	crt, key := secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]
	if len(crt) == 0 || len(key) == 0 || (bytes.Equal(crt, p.crt) && bytes.Equal(key, p.key)) {
		return ctrl.Result{}, nil
	}
	log := ctrl.LoggerFrom(ctx)
	if _, err := tls.X509KeyPair(crt, key); err != nil {
		log.Error(err, "the Secret's serving certificate and key do not form a pair; keeping the current ones", "secret", p.secret)
		return ctrl.Result{}, nil
	}
	log.Info("writing the serving certificate to the certificate directory", "dir", p.dir)
	if err := WriteDir(p.dir, map[string][]byte{CertFile: crt, KeyFile: key}); err != nil {
		return ctrl.Result{}, fmt.Errorf("writing the serving certificate to %s: %w", p.dir, err)
	}
	p.crt, p.key = crt, key
	return ctrl.Result{}, nil
}

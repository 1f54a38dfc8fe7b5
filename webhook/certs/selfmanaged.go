package certs

import (
	"context"
	"fmt"
	"time"

	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Names in the self-managed certificates, and the field manager of the
// caBundles.
const (
	caName     = "sluice-webhook-ca"
	caOrg      = "sluice"
	fieldOwner = "sluice-webhook"
)

// setupSelfManaged runs, in every replica:
//
//   - cert-controller's rotator: it fills the Secret with a CA and a
//     serving certificate when it is empty or they are unusable, renews
//     the serving certificate RenewBefore its expiry (checking every
//     CheckInterval and on every change of the Secret), and writes ca.crt
//     into the caBundle of every webhook of both configurations;
//   - the projector, writing the serving certificate into the
//     certificate directory, where the Loader reloads it;
//   - the CA rollover (decide).
//
// Replicas need no leader: every write is an update of what was read, so
// of two replicas writing at once one fails with a conflict, reads the
// other's result and keeps it.
func (s *Serving) setupSelfManaged(mgr manager.Manager) error {
	key := types.NamespacedName{Namespace: s.cfg.Namespace, Name: s.cfg.SecretName}
	if err := secretExists(mgr.GetAPIReader(), key); err != nil {
		return err
	}
	r := s.cfg.Rotation
	names := s.cfg.DNSNames()
	cr := &rotator.CertRotator{
		SecretKey:      key,
		CertDir:        s.cfg.Dir,
		CAName:         caName,
		CAOrganization: caOrg,
		DNSName:        names[0],
		ExtraDNSNames:  names[1:],
		IsReady:        make(chan struct{}),
		Webhooks: []rotator.WebhookInfo{
			{Name: s.cfg.MutatingConfiguration, Type: rotator.Mutating},
			{Name: s.cfg.ValidatingConfiguration, Type: rotator.Validating},
		},
		FieldOwner:             fieldOwner,
		CaCertDuration:         r.CAValidity,
		ServerCertDuration:     r.ServingValidity,
		LookaheadInterval:      r.RenewBefore,
		RotationCheckFrequency: r.CheckInterval,
		ControllerName:         "webhook-cert-rotator",
	}
	if err := rotator.AddRotator(mgr, cr); err != nil {
		return fmt.Errorf("setting up cert-controller's rotator: %w", err)
	}
	err := builder.ControllerManagedBy(mgr).Named("webhook-cert-files").
		For(&corev1.Secret{}).
		Complete(&projector{reader: mgr.GetClient(), secret: key, dir: s.cfg.Dir})
	if err != nil {
		return fmt.Errorf("setting up the certificate projector: %w", err)
	}
	toSecret := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: key}}
	})
	err = builder.ControllerManagedBy(mgr).Named("webhook-ca-rollover").
		For(&corev1.Secret{}).
		Watches(&admissionregistrationv1.MutatingWebhookConfiguration{}, toSecret).
		Watches(&admissionregistrationv1.ValidatingWebhookConfiguration{}, toSecret).
		Complete(&rolloverReconciler{
			client: mgr.GetClient(), secret: key,
			mutating: s.cfg.MutatingConfiguration, validating: s.cfg.ValidatingConfiguration,
			issuer: cr, rotation: r, now: time.Now,
		})
	if err != nil {
		return fmt.Errorf("setting up the CA rollover: %w", err)
	}
	return nil
}

// secretExists fails clearly when the Secret is missing: the webhook may
// update it but not create it (a role cannot grant create by name), so
// the chart creates it empty.
func secretExists(r client.Reader, key types.NamespacedName) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := r.Get(ctx, key, &corev1.Secret{})
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("the webhook's certificate Secret %s does not exist: in self-managed mode (--cert-mode) the webhook fills it but does not create it; the chart does", key)
	case err != nil:
		return fmt.Errorf("reading the webhook's certificate Secret %s: %w", key, err)
	}
	return nil
}

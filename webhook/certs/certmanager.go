package certs

import (
	"context"
	"fmt"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/sluice-data/sluice/webhook/metrics"
)

// certificateReporter reports the readiness of the Certificate
// cert-manager issues the serving certificate from (cert-manager mode): a
// log line when it is not Ready and the sluice_webhook_certificate_ready
// gauge. Whether the webhook is ready depends on the certificate it
// presents, not on this: a Certificate can be not Ready while the
// certificate in its Secret still serves (after a change of its spec,
// until it is issued again).
type certificateReporter struct {
	reader      client.Reader
	certificate types.NamespacedName
}

// Reconcile reads the Certificate's Ready condition.
func (r *certificateReporter) Reconcile(ctx context.Context, _ ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx).WithValues("certificate", r.certificate)
	gauge := metrics.CertificateReady.WithLabelValues(r.certificate.String())
	cert := &cmapi.Certificate{}
	if err := r.reader.Get(ctx, r.certificate, cert); err != nil {
		if apierrors.IsNotFound(err) {
			gauge.Set(0)
			log.Info("the webhook's cert-manager Certificate does not exist; nothing renews the serving certificate")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	ready, reason, message := certificateReady(cert)
	if !ready {
		gauge.Set(0)
		log.Info("the webhook's cert-manager Certificate is not Ready", "reason", reason, "message", message)
		return ctrl.Result{}, nil
	}
	gauge.Set(1)
	log.V(1).Info("the webhook's cert-manager Certificate is Ready", "notAfter", cert.Status.NotAfter)
	return ctrl.Result{}, nil
}

// certificateReady reads a Certificate's Ready condition; one not yet
// observed for the current generation does not count.
func certificateReady(cert *cmapi.Certificate) (ready bool, reason, message string) {
	for _, c := range cert.Status.Conditions {
		if c.Type != cmapi.CertificateConditionReady {
			continue
		}
		if c.ObservedGeneration != 0 && c.ObservedGeneration < cert.Generation {
			return false, "Outdated", "the Ready condition is for an older generation of the Certificate"
		}
		return c.Status == cmmeta.ConditionTrue, c.Reason, c.Message
	}
	return false, "NoReadyCondition", "cert-manager has not reported on the Certificate yet"
}

// setupCertManager watches the Certificate. The serving certificate
// itself comes from the Secret cert-manager writes, mounted at the
// certificate directory by the kubelet: the webhook needs no access to
// Secrets in this mode.
func (s *Serving) setupCertManager(mgr manager.Manager) error {
	key := types.NamespacedName{Namespace: s.cfg.Namespace, Name: s.cfg.CertificateName}
	err := builder.ControllerManagedBy(mgr).Named("webhook-certificate").
		For(&cmapi.Certificate{}).
		Complete(&certificateReporter{reader: mgr.GetClient(), certificate: key})
	if err != nil {
		return fmt.Errorf("setting up the Certificate reporter: %w", err)
	}
	return nil
}

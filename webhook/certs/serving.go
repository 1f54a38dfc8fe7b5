package certs

import (
	"crypto/tls"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Serving provides the webhook server's certificate. Build it before the
// manager (its TLS option, scheme and cache options are the manager's),
// then call SetupWithManager and add Ready as a readiness check.
type Serving struct {
	cfg    Config
	loader *Loader
	// bundles reads the webhook configurations' caBundles for Ready.
	bundles *liveBundles
}

// New checks cfg and returns its Serving.
func New(cfg Config) (*Serving, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Serving{cfg: cfg, loader: NewLoader(cfg.Dir)}, nil
}

// TLSOption makes the server present the Loader's certificate (an
// option of the webhook server's TLSOpts).
func (s *Serving) TLSOption(c *tls.Config) { c.GetCertificate = s.loader.GetCertificate }

// AddToScheme adds the kinds the mode reads: cert-manager's Certificate.
func (s *Serving) AddToScheme(scheme *runtime.Scheme) error {
	if s.cfg.Mode == CertManager {
		return cmapi.AddToScheme(scheme)
	}
	return nil
}

// CacheByObject limits the manager's cache to the objects the mode reads,
// each by name, so that the ServiceAccount needs access to those only.
func (s *Serving) CacheByObject() map[client.Object]cache.ByObject {
	byName := func(ns, name string) cache.ByObject {
		o := cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", name), UnsafeDisableDeepCopy: ptr.To(false)}
		if ns != "" {
			o.Namespaces = map[string]cache.Config{ns: {}}
		}
		return o
	}
	switch s.cfg.Mode {
	case SelfManaged:
		return map[client.Object]cache.ByObject{
			&corev1.Secret{}: byName(s.cfg.Namespace, s.cfg.SecretName),
			&admissionregistrationv1.MutatingWebhookConfiguration{}:   byName("", s.cfg.MutatingConfiguration),
			&admissionregistrationv1.ValidatingWebhookConfiguration{}: byName("", s.cfg.ValidatingConfiguration),
		}
	case CertManager:
		return map[client.Object]cache.ByObject{&cmapi.Certificate{}: byName(s.cfg.Namespace, s.cfg.CertificateName)}
	}
	return nil
}

// SetupWithManager adds the Loader and the mode's controllers.
func (s *Serving) SetupWithManager(mgr manager.Manager) error {
	if err := mgr.Add(s.loader); err != nil {
		return err
	}
	s.bundles = &liveBundles{reader: mgr.GetAPIReader(), mutating: s.cfg.MutatingConfiguration, validating: s.cfg.ValidatingConfiguration,
		timeout: bundleReadTimeout, maxStale: maxBundleStaleness}
	switch s.cfg.Mode {
	case SelfManaged:
		return s.setupSelfManaged(mgr)
	case CertManager:
		return s.setupCertManager(mgr)
	}
	return nil
}

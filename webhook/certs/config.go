package certs

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
)

// Mode says who provides the serving certificate.
type Mode string

const (
	// SelfManaged: the webhook creates and rotates a CA and serving
	// certificate in a Secret and injects the CA into both webhook
	// configurations.
	SelfManaged Mode = "self-managed"
	// CertManager: cert-manager issues the certificate into a Secret
	// mounted at the certificate directory and injects the CA; the webhook
	// reports when the Certificate is not Ready.
	CertManager Mode = "cert-manager"
	// Files: someone else writes tls.crt and tls.key into the certificate
	// directory (sluice dev, tests, a user's own tooling).
	Files Mode = "files"
)

// Environment variables the chart sets; each is the default of a flag.
const (
	EnvMode                    = "SLUICE_WEBHOOK_CERT_MODE"
	EnvSecret                  = "SLUICE_WEBHOOK_CERT_SECRET"
	EnvService                 = "SLUICE_WEBHOOK_SERVICE"
	EnvMutatingConfiguration   = "SLUICE_WEBHOOK_MUTATING_CONFIGURATION"
	EnvValidatingConfiguration = "SLUICE_WEBHOOK_VALIDATING_CONFIGURATION"
	EnvCertificate             = "SLUICE_WEBHOOK_CERTIFICATE"
)

// Config says where the certificate comes from and where it goes.
type Config struct {
	// Mode is self-managed, cert-manager or files.
	Mode Mode
	// Dir is the certificate directory the server reads tls.crt and
	// tls.key from (the webhook's --cert-dir).
	Dir string
	// Namespace holds the Secret (self-managed) or the Certificate
	// (cert-manager): the webhook's own namespace.
	Namespace string
	// SecretName is the Secret holding the CA and serving certificate
	// (self-managed).
	SecretName string
	// ServiceName is the webhook's Service; the serving certificate is
	// for <service>.<namespace>.svc and .svc.cluster.local.
	ServiceName string
	// ExtraDNSNames are further names the serving certificate is for.
	ExtraDNSNames []string
	// MutatingConfiguration and ValidatingConfiguration are the webhook
	// configurations the CA is injected into (self-managed: by the
	// webhook; cert-manager: by its cainjector), whose caBundles must
	// trust the served certificate before the webhook is ready.
	MutatingConfiguration   string
	ValidatingConfiguration string
	// CertificateName is cert-manager's Certificate (cert-manager mode).
	CertificateName string
	// Rotation times the self-managed CA and serving certificate.
	Rotation Rotation
}

// Rotation times the self-managed certificates.
type Rotation struct {
	// CAValidity is how long a CA is valid.
	CAValidity time.Duration
	// ServingValidity is how long a serving certificate is valid.
	ServingValidity time.Duration
	// RenewBefore is how long before it expires a serving certificate is
	// renewed. The CA rollover ends before the CA is this close to its
	// expiry (after that, cert-controller would replace it at once).
	RenewBefore time.Duration
	// CheckInterval is how often the certificates are checked besides
	// when the Secret changes.
	CheckInterval time.Duration
	// Propagation is how long a change takes to reach everyone who must
	// see it: a new caBundle every API server, a new certificate every
	// replica. The rollover waits this long between its steps.
	Propagation time.Duration
}

// DefaultRotation: a five-year CA, rolled over about three months before
// it expires; one-year serving certificates renewed three months before.
var DefaultRotation = Rotation{
	CAValidity:      5 * 365 * 24 * time.Hour,
	ServingValidity: 365 * 24 * time.Hour,
	RenewBefore:     90 * 24 * time.Hour,
	CheckInterval:   time.Hour,
	Propagation:     10 * time.Minute,
}

// NewConfig returns the defaults for a webhook in namespace: self-managed,
// the object names config/ and the chart use, each overridden by its
// environment variable when set.
func NewConfig(namespace string) Config {
	return Config{
		Mode:                    Mode(env(EnvMode, string(SelfManaged))),
		Namespace:               namespace,
		SecretName:              env(EnvSecret, "sluice-webhook-cert"),
		ServiceName:             env(EnvService, "sluice-webhook"),
		MutatingConfiguration:   env(EnvMutatingConfiguration, "sluice-mutating-webhook"),
		ValidatingConfiguration: env(EnvValidatingConfiguration, "sluice-validating-webhook"),
		CertificateName:         env(EnvCertificate, "sluice-webhook"),
		Rotation:                DefaultRotation,
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// AddFlags registers the configuration as flags (Dir is the webhook's
// --cert-dir, registered by the webhook).
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar((*string)(&c.Mode), "cert-mode", string(c.Mode), "who provides the serving certificate: self-managed (the webhook, in --cert-secret), cert-manager (mounted at --cert-dir; --certificate is watched) or files (written to --cert-dir by someone else) [$"+EnvMode+"]")
	fs.StringVar(&c.Namespace, "namespace", c.Namespace, "the webhook's namespace, where its certificate Secret or Certificate is [$POD_NAMESPACE]")
	fs.StringVar(&c.SecretName, "cert-secret", c.SecretName, "self-managed: the Secret holding the CA and serving certificate; it must exist [$"+EnvSecret+"]")
	fs.StringVar(&c.ServiceName, "service", c.ServiceName, "the webhook's Service: the serving certificate is for <service>.<namespace>.svc [$"+EnvService+"]")
	fs.StringSliceVar(&c.ExtraDNSNames, "cert-extra-dns-names", c.ExtraDNSNames, "self-managed: further DNS names of the serving certificate")
	fs.StringVar(&c.MutatingConfiguration, "mutating-configuration", c.MutatingConfiguration, "self-managed and cert-manager: the MutatingWebhookConfiguration the CA is injected into, which must trust the served certificate before the webhook is ready [$"+EnvMutatingConfiguration+"]")
	fs.StringVar(&c.ValidatingConfiguration, "validating-configuration", c.ValidatingConfiguration, "self-managed and cert-manager: the ValidatingWebhookConfiguration the CA is injected into, which must trust the served certificate before the webhook is ready [$"+EnvValidatingConfiguration+"]")
	fs.StringVar(&c.CertificateName, "certificate", c.CertificateName, "cert-manager: the Certificate whose readiness is reported [$"+EnvCertificate+"]")
	fs.DurationVar(&c.Rotation.CAValidity, "ca-validity", c.Rotation.CAValidity, "self-managed: how long a CA is valid")
	fs.DurationVar(&c.Rotation.ServingValidity, "cert-validity", c.Rotation.ServingValidity, "self-managed: how long a serving certificate is valid")
	fs.DurationVar(&c.Rotation.RenewBefore, "cert-renew-before", c.Rotation.RenewBefore, "self-managed: renew a serving certificate this long before it expires; the CA rollover ends before the CA is this close to expiring")
	fs.DurationVar(&c.Rotation.CheckInterval, "cert-check-interval", c.Rotation.CheckInterval, "self-managed: how often the certificates are checked besides when their Secret changes")
	fs.DurationVar(&c.Rotation.Propagation, "ca-propagation", c.Rotation.Propagation, "self-managed: how long a new caBundle takes to reach the API servers and a new certificate every replica; the CA rollover waits this long between its steps")
}

// Validate checks the configuration for its mode.
func (c *Config) Validate() error {
	var errs []error
	need := func(v, flag string) {
		if v == "" {
			errs = append(errs, fmt.Errorf("--%s must not be empty in %s mode", flag, c.Mode))
		}
	}
	need(c.Dir, "cert-dir")
	switch c.Mode {
	case Files:
	case CertManager:
		need(c.Namespace, "namespace")
		need(c.CertificateName, "certificate")
		need(c.MutatingConfiguration, "mutating-configuration")
		need(c.ValidatingConfiguration, "validating-configuration")
	case SelfManaged:
		need(c.Namespace, "namespace")
		need(c.SecretName, "cert-secret")
		need(c.ServiceName, "service")
		need(c.MutatingConfiguration, "mutating-configuration")
		need(c.ValidatingConfiguration, "validating-configuration")
		errs = append(errs, c.Rotation.validate())
	default:
		errs = append(errs, fmt.Errorf("--cert-mode must be %s, %s or %s, not %q", SelfManaged, CertManager, Files, c.Mode))
	}
	return errors.Join(errs...)
}

func (r Rotation) validate() error {
	for flag, d := range map[string]time.Duration{"ca-validity": r.CAValidity, "cert-validity": r.ServingValidity,
		"cert-renew-before": r.RenewBefore, "cert-check-interval": r.CheckInterval, "ca-propagation": r.Propagation} {
		if d <= 0 {
			return fmt.Errorf("--%s must be positive, not %v", flag, d)
		}
	}
	if r.RenewBefore >= r.ServingValidity {
		return fmt.Errorf("--cert-renew-before (%v) must be shorter than --cert-validity (%v), or every check renews the certificate", r.RenewBefore, r.ServingValidity)
	}
	if r.rolloverLead() >= r.CAValidity {
		return fmt.Errorf("--ca-validity (%v) must be longer than --cert-renew-before plus twice --ca-propagation (%v), the time a CA rollover needs", r.CAValidity, r.rolloverLead())
	}
	return nil
}

// rolloverLead is how long before the CA expires its rollover starts: one
// propagation to trust the next CA, one to sign with it, and the renewal
// margin, before which cert-controller would replace the CA at once.
func (r Rotation) rolloverLead() time.Duration { return r.RenewBefore + 2*r.Propagation }

// DNSNames are the names the serving certificate is for: the Service's
// in-cluster names first, then ExtraDNSNames.
func (c *Config) DNSNames() []string {
	svc := c.ServiceName + "." + c.Namespace + ".svc"
	return append([]string{svc, svc + ".cluster.local"}, c.ExtraDNSNames...)
}

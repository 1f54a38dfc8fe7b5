package webhook

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/sluice-data/sluice/internal/metricsauth"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/audit"
	"github.com/sluice-data/sluice/webhook/certs"
	"github.com/sluice-data/sluice/webhook/workloads"
)

// Options configure `sluice webhook`.
type Options struct {
	// Host is the address the webhook server binds; empty means all.
	Host string
	// Port is the HTTPS port of the webhook server.
	Port int
	// CertDir holds tls.crt and tls.key; changes are picked up without restart.
	CertDir string
	// Certs says who provides the serving certificate (webhook/certs); its
	// Dir is CertDir.
	Certs certs.Config
	// MetricsAddr serves Prometheus metrics ("0" disables).
	MetricsAddr string
	// MetricsSecure serves them over HTTPS to authorized callers only
	// (internal/metricsauth).
	MetricsSecure bool
	// ProbeAddr serves /healthz and /readyz.
	ProbeAddr string
	// PolicyNamespaces are the namespaces whose policy ConfigMaps are loaded.
	PolicyNamespaces []string
	// WorkloadCheck is what a workload whose Pod template the Pod deny
	// rules refuse gets: warn (admitted with warnings), deny, or off (the
	// check is not served).
	WorkloadCheck string
	// PolicyProfile is the install profile whose policy data is merged
	// over the embedded defaults, under the policy ConfigMaps
	// (policies.Profile): restricted (the default) or fluid-compatible.
	PolicyProfile string
	// FuseRecords is the namespace of the controller's FUSE records
	// (datav1alpha1.FuseRecord), which the sidecar of a runtime serving
	// another namespace's Pod is built from: the controller's
	// --fuse-record-namespace.
	FuseRecords string
	// MaxRequestBytes caps admission request bodies.
	MaxRequestBytes int64
	// NativeSidecars is auto, true or false.
	NativeSidecars string
	// DecisionCacheSize is how many policy decisions are remembered for
	// repeated inputs (0 disables the cache).
	DecisionCacheSize int
	// DecisionCacheBytes bounds the approximate size of the inputs the
	// decision cache keeps (policy.InputSize); 0 disables the cache.
	DecisionCacheBytes int64
	// GCPercent is the garbage collector's target (GOGC) the webhook runs
	// with, unless the GOGC environment variable is set; 0 leaves Go's default.
	GCPercent int
	// ClaimGracePeriod is how long a Dataset claim is kept for an operation
	// that was never stored before the next claim may release it.
	ClaimGracePeriod time.Duration
	// ClientCAFile, when set, is a PEM file of the CAs whose client
	// certificates the webhook server requires of every caller (the API
	// server, given one through its admission control configuration); a
	// caller without one fails the TLS handshake.
	ClientCAFile string
	// ClientNames, when set, are the only subjects (a client
	// certificate's common name or one of its DNS names) accepted; only
	// with ClientCAFile.
	ClientNames []string
	// SpecialisePolicies makes the policy engine specialise its queries by
	// input class (webhook/internal/specialise); false evaluates every input
	// with the general query.
	SpecialisePolicies bool
	// QuickEval makes the policy engine evaluate its queries compiled to
	// closures (webhook/internal/quickeval), OPA's evaluator answering the
	// inputs they do not; false evaluates every input with OPA.
	QuickEval bool
	// ShutdownDelay is how long the webhook keeps serving, unready, once
	// told to stop, before it closes its listener and drains the requests
	// in flight: longer than the Service takes to stop sending it
	// connections.
	ShutdownDelay time.Duration
	// DisableInjection turns the mutating webhook's injection off for
	// every Pod: the deny rules still judge each, and none is mutated. The
	// environment variable DisableInjectionEnv ("true"), Fluid's, does the
	// same and is read on every review, as Fluid reads it.
	DisableInjection bool
	// AuditInterval, when set, turns the in-cluster audit on: every
	// interval and on every policy bundle change, one replica (the holder
	// of the Lease audit.LeaseName in AuditLeaseNamespace) writes each
	// namespace's PolicyReport (webhook/audit).
	AuditInterval time.Duration
	// AuditQPS bounds the audit's API requests per second (Pod pages and
	// report writes).
	AuditQPS float64
	// AuditPageSize is how many Pods one audit list request returns.
	AuditPageSize int64
	// AuditLeaseNamespace holds the audit's Lease.
	AuditLeaseNamespace string
	// AuditSkipNamespaces are not audited: the namespaces the webhook
	// configurations exclude.
	AuditSkipNamespaces []string
}

// DisableInjectionEnv is Fluid's environment variable that turns the
// mutating webhook's injection off (see Options.DisableInjection).
const DisableInjectionEnv = "DISABLE_INJECTION"

// InjectionDisabled says whether injection is off: by o.DisableInjection
// or by DisableInjectionEnv set to a true value (strconv.ParseBool).
func (o *Options) InjectionDisabled() bool {
	if o.DisableInjection {
		return true
	}
	on, err := strconv.ParseBool(os.Getenv(DisableInjectionEnv))
	return err == nil && on
}

// DefaultGCPercent is the webhook's default GOGC. Admission latency matters
// more to a webhook than heap size: the collector's work, on a small node,
// is what makes the slowest admissions slow (BenchmarkAdmission's p99 falls
// by about half at 400). Bound the heap with GOMEMLIMIT or a container memory
// limit instead.
const DefaultGCPercent = 400

// DefaultNamespace is where Sluice runs when POD_NAMESPACE is not set.
const DefaultNamespace = "sluice-system"

// NewOptions returns the defaults.
func NewOptions() *Options {
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		ns = DefaultNamespace
	}
	return &Options{
		Port:                9443,
		CertDir:             "/etc/sluice/webhook/certs",
		Certs:               certs.NewConfig(ns),
		MetricsAddr:         ":8080",
		ProbeAddr:           ":8081",
		PolicyNamespaces:    []string{ns},
		FuseRecords:         ns,
		WorkloadCheck:       string(workloads.Warn),
		MaxRequestBytes:     7 << 20, // an UPDATE carries the object twice: controller-runtime's own bound
		NativeSidecars:      "auto",
		DecisionCacheSize:   4096,
		DecisionCacheBytes:  64 << 20,
		ClaimGracePeriod:    30 * time.Second,
		GCPercent:           DefaultGCPercent,
		SpecialisePolicies:  true,
		QuickEval:           true,
		ShutdownDelay:       5 * time.Second,
		AuditQPS:            5,
		AuditPageSize:       audit.DefaultPageSize,
		AuditLeaseNamespace: ns,
		AuditSkipNamespaces: []string{"kube-system", ns},
	}
}

// AddFlags registers the options as flags.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Host, "host", o.Host, "address the webhook server binds (empty: all)")
	fs.IntVar(&o.Port, "port", o.Port, "HTTPS port of the webhook server")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "directory with tls.crt and tls.key, reloaded on change (self-managed: the webhook writes them there from its Secret; cert-manager: mount the Secret there)")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "address of the Prometheus metrics endpoint (0 disables it)")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, metricsauth.FlagUsage)
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz")
	fs.StringSliceVar(&o.PolicyNamespaces, "policy-namespaces", o.PolicyNamespaces, "namespaces whose ConfigMaps labelled policy.sluice.io/bundle=true are loaded")
	fs.StringVar(&o.WorkloadCheck, "workload-check", o.WorkloadCheck, "Deployments, StatefulSets, DaemonSets, Jobs and CronJobs whose Pod template the Pod deny rules refuse (served at /validate-workloads): warn (admitted with the denials as warnings), deny, or off")
	fs.StringVar(&o.PolicyProfile, "policy-profile", o.PolicyProfile, "install profile ("+strings.Join(policies.Profiles(), ", ")+"): its policy data is merged over the embedded defaults, under the policy ConfigMaps (docs/install.md, \"Install profiles\")")
	fs.StringVar(&o.FuseRecords, "fuse-record-namespace", o.FuseRecords, "namespace of the controller's FUSE records (its --fuse-record-namespace): a runtime's FUSE sidecar in another namespace's Pod is built from the template the controller recorded there, never from the runtime namespace's DaemonSet")
	fs.Int64Var(&o.MaxRequestBytes, "max-request-bytes", o.MaxRequestBytes, "largest admission request body accepted")
	fs.IntVar(&o.DecisionCacheSize, "decision-cache-size", o.DecisionCacheSize, "policy decisions remembered for repeated inputs, e.g. the replicas of one Deployment (0 disables); only used when the policies call no nondeterministic builtin")
	fs.Int64Var(&o.DecisionCacheBytes, "decision-cache-bytes", o.DecisionCacheBytes, "bound on the approximate size of the policy inputs the decision cache keeps, so that large unique inputs (dry-run Pods with big annotations) cannot grow memory (0 disables the cache); an input over an eighth of it is not cached")
	fs.IntVar(&o.GCPercent, "gc-percent", o.GCPercent, "garbage-collector target (GOGC) unless the GOGC environment variable is set; 0 keeps Go's default")
	fs.DurationVar(&o.ClaimGracePeriod, "claim-grace-period", o.ClaimGracePeriod, "how long a Dataset claim of an operation that was never stored is kept before another operation may take over")
	fs.StringVar(&o.NativeSidecars, "native-sidecars", o.NativeSidecars, "inject FUSE sidecars as native sidecars: auto (by server version), true or false")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM file of the CAs whose client certificates the webhook server requires of every caller (give the API server one in its --admission-control-config-file; see docs/install.md); a caller without one fails the TLS handshake; reread when it changes (empty: callers are not authenticated)")
	fs.StringSliceVar(&o.ClientNames, "client-names", o.ClientNames, "with --client-ca-file, the only client certificate subjects accepted: a common name or DNS name (empty: any certificate the CAs signed)")
	fs.DurationVar(&o.ShutdownDelay, "shutdown-delay", o.ShutdownDelay, "on SIGTERM, how long to keep serving with /readyz failing before the listener closes and the requests in flight drain: longer than the Service takes to stop sending connections to a terminating Pod (give the Pod a terminationGracePeriodSeconds longer than this plus the webhooks' timeoutSeconds)")
	fs.BoolVar(&o.DisableInjection, "disable-injection", o.DisableInjection, "turn injection off for every Pod (FUSE sidecars, data affinity, every mutation): Pods are judged by the policies' deny rules and admitted unmutated, those that asked for injection with a warning; the environment variable "+DisableInjectionEnv+"=true does the same")
	fs.DurationVar(&o.AuditInterval, "audit-interval", o.AuditInterval, "turn the in-cluster policy audit on: every interval, and whenever the policy bundle changes, one replica evaluates the stored objects and writes a wgpolicyk8s.io PolicyReport per namespace (the CRDs must be installed; 0: off)")
	fs.Float64Var(&o.AuditQPS, "audit-qps", o.AuditQPS, "with --audit-interval, the audit's API requests per second at most (Pod list pages and report writes)")
	fs.Int64Var(&o.AuditPageSize, "audit-page-size", o.AuditPageSize, "with --audit-interval, the Pods one list request returns")
	fs.StringSliceVar(&o.AuditSkipNamespaces, "audit-skip-namespaces", o.AuditSkipNamespaces, "with --audit-interval, namespaces not audited: those the webhook configurations exclude (the chart passes kube-system, its own and webhook.excludeNamespaces)")
	fs.StringVar(&o.AuditLeaseNamespace, "audit-lease-namespace", o.AuditLeaseNamespace, "with --audit-interval, the namespace of the Lease that elects the auditing replica (default: the Pod's)")
	o.Certs.AddFlags(fs)
	fs.BoolVar(&o.SpecialisePolicies, "specialise-policies", o.SpecialisePolicies, "specialise the policy queries by input class, built in the background for the classes seen (false: every input is evaluated with the general query)")
	fs.BoolVar(&o.QuickEval, "quick-eval", o.QuickEval, "evaluate the policy queries compiled to Go closures, OPA's evaluator answering what they cannot answer as it would (false: OPA evaluates every input)")
}

// Validate checks the options.
func (o *Options) Validate() error {
	switch strings.ToLower(o.NativeSidecars) {
	case "auto", "true", "false":
	default:
		return fmt.Errorf("--native-sidecars must be auto, true or false, not %q", o.NativeSidecars)
	}
	if o.DecisionCacheSize < 0 {
		return fmt.Errorf("--decision-cache-size must not be negative")
	}
	if o.DecisionCacheBytes < 0 {
		return fmt.Errorf("--decision-cache-bytes must not be negative")
	}
	if o.FuseRecords == "" {
		return fmt.Errorf("--fuse-record-namespace must name the controller's namespace")
	}
	if o.MaxRequestBytes <= 0 {
		return fmt.Errorf("--max-request-bytes must be positive")
	}
	if o.AuditInterval < 0 {
		return fmt.Errorf("--audit-interval must not be negative")
	}
	if o.AuditInterval > 0 && (o.AuditQPS <= 0 || o.AuditPageSize <= 0 || o.AuditLeaseNamespace == "") {
		return fmt.Errorf("--audit-interval needs a positive --audit-qps and --audit-page-size, and an --audit-lease-namespace")
	}
	if o.ShutdownDelay < 0 {
		return fmt.Errorf("--shutdown-delay must not be negative")
	}
	if len(o.PolicyNamespaces) == 0 {
		return fmt.Errorf("--policy-namespaces needs at least one namespace")
	}
	if v, set := os.LookupEnv(DisableInjectionEnv); set && v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			return fmt.Errorf("the environment variable %s=%q is not a boolean", DisableInjectionEnv, v)
		}
	}
	switch o.WorkloadCheck {
	case string(workloads.Warn), string(workloads.Deny), "off":
	default:
		return fmt.Errorf("--workload-check must be warn, deny or off, not %q", o.WorkloadCheck)
	}
	if _, err := policies.Profile(o.PolicyProfile); err != nil {
		return fmt.Errorf("--policy-profile: %w", err)
	}
	if len(o.ClientNames) > 0 && o.ClientCAFile == "" {
		return fmt.Errorf("--client-names needs --client-ca-file")
	}
	c := o.certs()
	return c.Validate()
}

// certs is the certificate configuration with its directory, CertDir.
func (o *Options) certs() certs.Config {
	c := o.Certs
	c.Dir = o.CertDir
	return c
}

package controller

import (
	"errors"
	"fmt"
	"time"

	crlog "sigs.k8s.io/controller-runtime/pkg/log"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/claimrelease"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/controller/metrics"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/internal/metricsauth"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/trust/guardcheck"
)

// Options configure `sluice controller`.
type Options struct {
	MetricsAddr string
	// MetricsSecure serves them over HTTPS to authorized callers only
	// (internal/metricsauth).
	MetricsSecure bool
	// PprofAddr serves net/http/pprof when set (e.g. 127.0.0.1:6060).
	PprofAddr               string
	ProbeAddr               string
	LeaderElect             bool
	LeaderElectionNamespace string
	// ClaimGracePeriod is how long a Dataset claim of an operation that does
	// not exist is kept (the validating webhook's --claim-grace-period).
	ClaimGracePeriod time.Duration
	// CacheRefresh is how often bound runtimes' cache states are re-read.
	CacheRefresh time.Duration
	// MetadataRefresh is how often a metadata Job counts a Dataset again
	// (0: once, as Fluid).
	MetadataRefresh time.Duration
	// MetadataDeadline bounds a metadata Job's run.
	MetadataDeadline time.Duration
	// ReleaseRetry is the first wait before a runtime's release is tried
	// again with a spec that failed to deploy; it doubles with each failure.
	ReleaseRetry time.Duration
	// Concurrency is how many runtimes of one kind reconcile at once.
	Concurrency int
	// QPS and Burst limit the controller's API requests; QPS < 0 (the
	// default, as controller-runtime's) leaves throttling to the API
	// server's priority and fairness.
	QPS   float32
	Burst int
	// SluiceImage is the image of this binary, which runs the commands that
	// no engine image has: a Thin DataLoad's `sluice warmup` and the
	// metadata Jobs' `sluice ufs-count`. The chart sets it to its own
	// image; empty, such operations fail saying so and no metadata Job
	// runs.
	SluiceImage string
	// FuseRecords is the namespace (the controller's own) where the FUSE
	// pod template rendered for each runtime is recorded, the webhook's
	// source for other namespaces' sidecars (datav1alpha1.FuseRecord);
	// empty records none, and the webhook then injects no sidecar of a
	// runtime into another namespace's Pods.
	FuseRecords string
	// PolicyNamespaces are the webhook's policy namespaces: the operation
	// conflict table is read from the policy data of their ConfigMaps, as
	// the webhook's policies read it (none: the default table alone).
	PolicyNamespaces []string
	// PolicyProfile is the webhook's --policy-profile (the chart sets both
	// alike): the install profile whose policy data the tables read here
	// start from (policies.Profile; empty: restricted).
	PolicyProfile string
	// GCPeriod is how often the orphan sweep (controller/gc) removes what
	// the controller created for runtimes that are gone without their
	// deletion's cleanup (FUSE records, Dataset volumes, node labels); 0
	// turns it off.
	GCPeriod time.Duration
	// HostPortRange is the range the ports of runtimes' components on the
	// host network are allocated from (controller/hostports).
	HostPortRange hostports.Range
	// HostPorts, when set, is the host port allocator (tests read what it
	// holds); nil builds one over HostPortRange.
	HostPorts *hostports.Allocator
	// Engines are the engines the controller runs, one runtime reconciler
	// each, and the ones data operations run on: main.go passes
	// registry.Default's; tests run the fake engine. Required.
	Engines []engines.Engine
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{MetricsAddr: ":8080", ProbeAddr: ":8081", LeaderElect: true, ClaimGracePeriod: 30 * time.Second, CacheRefresh: 30 * time.Second,
		MetadataRefresh: time.Hour, MetadataDeadline: time.Hour, ReleaseRetry: helm.DefaultRetryBase, GCPeriod: 10 * time.Minute,
		Concurrency: 32, QPS: -1, Burst: 0, HostPortRange: hostports.DefaultRange}
}

// LeaderElectionID names the controller's leader-election lease.
const LeaderElectionID = "sluice-controller.data.fluid.io"

// New builds the controller manager with every reconciler. Start it with
// mgr.Start.
func New(cfg *rest.Config, o *Options) (manager.Manager, error) {
	if len(o.Engines) == 0 {
		return nil, errors.New("the controller needs engines (Options.Engines)")
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.WarningHandlerWithContext = apiWarnings()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  sluicescheme.New(),
		Metrics:                 metricsauth.ServerOptions(o.MetricsAddr, o.MetricsSecure),
		HealthProbeBindAddress:  o.ProbeAddr,
		PprofBindAddress:        o.PprofAddr,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: o.LeaderElectionNamespace,
		Cache:                   CacheOptions(),
		// Never cache Secrets: that would list and watch every Secret of
		// the cluster (audit N14); a read of one goes to the API server.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	data, err := policies.DefaultData(o.PolicyProfile)
	if err != nil {
		return nil, err
	}
	if err := claim.ValidateTable(data); err != nil {
		return nil, err
	}
	live, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, err
	}
	ops := &claimrelease.Reconcilers{Client: mgr.GetClient(), Live: live, Grace: o.ClaimGracePeriod}
	if err := ops.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the Dataset claim releaser: %w", err)
	}
	helmClients := &helmClients{discovery: helm.NewDiscovery(cfg), retryBase: o.ReleaseRetry, writer: helm.NewWriter()}
	// The engines: one runtime reconciler each; data operations run on them.
	registry := o.Engines
	failures := &metrics.Failures{}
	opMetrics := metrics.NewOperations()
	conflicts := &claim.PolicyTable{Reader: live, Namespaces: o.PolicyNamespaces, Default: data}
	guard := &guardcheck.Checker{Data: conflicts.Data, Reader: live, MaxAge: 5 * time.Second}
	ports := o.HostPorts
	if ports == nil {
		// Read from the API server: the runtimes' records as the last
		// leader left them.
		ports = hostports.New(o.HostPortRange, hostports.Records(live))
	}
	if err := setupRuntimes(mgr, o, helmClients, registry, failures, guard, ports); err != nil {
		return nil, err
	}
	if err := setupDatasets(mgr, registry); err != nil {
		return nil, err
	}
	if err := setupReferences(mgr, o, registry); err != nil {
		return nil, err
	}
	if err := setupOperations(mgr, o, live, conflicts, helmClients, registry, guard, opMetrics); err != nil {
		return nil, err
	}
	if err := setupGC(mgr, o, registry); err != nil {
		return nil, err
	}
	if err := setupSidecarExit(mgr); err != nil {
		return nil, err
	}
	if err := setupMetrics(mgr, registry, failures, opMetrics); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}

// apiWarnings logs each distinct API server warning once. The same warning
// otherwise repeats for every Dataset: Kubernetes warns that the default
// PVC size, Fluid's 100Pi, is a "fractional byte value" (a false warning:
// the check converts the size to milli-units, which overflows int64).
func apiWarnings() rest.WarningHandlerWithContext {
	return crlog.NewKubeAPIWarningLogger(crlog.KubeAPIWarningLoggerOptions{Deduplicate: true})
}

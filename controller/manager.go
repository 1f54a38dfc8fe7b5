package controller

import (
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/dataops"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/runtime"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/webhook/policy"
)

// Options configure `sluice controller`.
type Options struct {
	MetricsAddr             string
	ProbeAddr               string
	LeaderElect             bool
	LeaderElectionNamespace string
	// ClaimGracePeriod is how long a Dataset claim of an operation that does
	// not exist is kept (the validating webhook's --claim-grace-period).
	ClaimGracePeriod time.Duration
	// CacheRefresh is how often bound runtimes' cache states are re-read.
	CacheRefresh time.Duration
	// Concurrency is how many runtimes of one kind reconcile at once.
	Concurrency int
	// QPS and Burst limit the controller's API requests (QPS < 0: no limit).
	QPS   float32
	Burst int
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{MetricsAddr: ":8080", ProbeAddr: ":8081", LeaderElect: true, ClaimGracePeriod: 30 * time.Second, CacheRefresh: 30 * time.Second,
		Concurrency: 8, QPS: 100, Burst: 200}
}

// LeaderElectionID names the controller's leader-election lease.
const LeaderElectionID = "sluice-controller.data.fluid.io"

// New builds the controller manager with every reconciler. Start it with
// mgr.Start.
func New(cfg *rest.Config, o *Options) (manager.Manager, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  sluicescheme.New(),
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:  o.ProbeAddr,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: o.LeaderElectionNamespace,
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	bundle, err := policy.DefaultBundle()
	if err != nil {
		return nil, err
	}
	conflicts, err := Conflicts(bundle)
	if err != nil {
		return nil, err
	}
	live, err := client.New(cfg, client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, err
	}
	ops := &dataops.Reconcilers{Client: mgr.GetClient(), Live: live, Conflicts: conflicts, Grace: o.ClaimGracePeriod}
	if err := ops.SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the data-operation reconcilers: %w", err)
	}
	helmClients := &helmClients{discovery: helm.NewDiscovery(cfg)}
	jfs := &runtime.Reconciler{
		Client: mgr.GetClient(), NewObject: func() client.Object { return &datav1alpha1.JuiceFSRuntime{} },
		Engine: juicefs.Engine{}, Helm: helmClients.forNamespace, MountType: runtime.StaticMountType("fuse.juicefs"), FusePath: juicefs.FusePath,
		CacheRefresh: o.CacheRefresh, Concurrency: o.Concurrency, Events: mgr.GetEventRecorder("sluice-controller"),
	}
	if err := jfs.SetupWithManager(mgr, "juicefsruntime"); err != nil {
		return nil, fmt.Errorf("setting up the JuiceFS runtime reconciler: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	return mgr, nil
}

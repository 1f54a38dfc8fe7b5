package controller

import (
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/internal/metricsauth"
	"github.com/sluice-data/sluice/policies"
)

// NewCommand returns `sluice controller`; connect returns the cluster's
// client configuration (the root command's --kubeconfig), newEngines the
// engines it runs, given its --sluice-image and the engines' default
// images (--image-registry, --engine-image), or why those are wrong
// (registry.Default's, from main.go).
func NewCommand(connect func() (*rest.Config, error), newEngines func(sluiceImage string, images engines.Images) ([]engines.Engine, error)) *cobra.Command {
	o := NewOptions()
	var images engines.Images
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run Sluice's controller manager",
		Long: `Runs the controller manager: it binds each runtime to its Dataset, installs
and upgrades the engine's release with the Helm SDK, creates the Dataset's
PV and PVC, labels the nodes holding its cache, reports cache states from
the engine's metrics, and runs data operations (DataLoad, DataMigrate,
DataBackup, DataProcess) as Jobs or CronJobs, each holding its Dataset's
claim while it executes (and releasing the holds of finished, deleted and
never-stored operations).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Engines, err = newEngines(o.SluiceImage, images); err != nil {
				return err
			}
			cfg, err := connect()
			if err != nil {
				return err
			}
			mgr, err := New(cfg, o)
			if err != nil {
				return err
			}
			return mgr.Start(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "address of the Prometheus metrics endpoint (0 disables it)")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, metricsauth.FlagUsage)
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr, "address to serve Go's pprof profiles on (empty: off)")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader so that one replica reconciles at a time")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the leader-election lease (default: the Pod's)")
	fs.DurationVar(&o.ClaimGracePeriod, "claim-grace-period", o.ClaimGracePeriod, "how long a Dataset claim of an operation that does not exist is kept")
	fs.DurationVar(&o.CacheRefresh, "cache-refresh-interval", o.CacheRefresh, "how often bound runtimes' cache states are re-read from their pods' metrics (0: only on changes)")
	fs.DurationVar(&o.MetadataRefresh, "metadata-refresh-interval", o.MetadataRefresh, "how often a metadata Job counts a Dataset again (0: once, as Fluid; metrics-reported usage is re-read with the cache states)")
	fs.DurationVar(&o.MetadataDeadline, "metadata-job-deadline", o.MetadataDeadline, "how long a metadata Job may run before it fails")
	fs.DurationVar(&o.ReleaseRetry, "release-retry-base", o.ReleaseRetry, "first wait before a runtime's release is tried again with a spec that failed to deploy (doubled per failure, at most 15m)")
	fs.StringVar(&o.SluiceImage, "sluice-image", o.SluiceImage, "the image of this sluice binary, which runs the commands no engine image has (a Thin DataLoad's sluice warmup, the metadata Jobs' sluice ufs-count); the chart sets it; empty: no metadata Job runs")
	fs.StringVar(&images.Registry, "image-registry", "", "for clusters pulling from a mirror: the registry (host[:port][/path]) replacing the registry of the engines' built-in default images (juicedata/juicefs-fuse becomes <registry>/juicedata/juicefs-fuse); a runtime's own image fields still win")
	fs.StringToStringVar(&images.Overrides, "engine-image", nil, "name=reference: an engine's default image replaced (juicefs, alluxio, ...: a name no engine has is refused, naming theirs); a reference without a tag keeps the default's tag; --image-registry does not apply to it")
	fs.StringVar(&o.FuseRecords, "fuse-record-namespace", o.FuseRecords, "namespace (the controller's own; the chart sets it) where the FUSE pod template rendered for each runtime is recorded as a PodTemplate, which the webhook builds other namespaces' FUSE sidecars from (empty: none is recorded, and no runtime's sidecar is injected into another namespace's Pods)")
	fs.DurationVar(&o.GCPeriod, "gc-interval", o.GCPeriod, "how often what the controller created for runtimes that are gone without their deletion's cleanup (their finalizer removed) is looked for and removed: FUSE records, Dataset PVCs and PVs, node cache labels (0: never)")
	fs.StringSliceVar(&o.PolicyNamespaces, "policy-namespaces", o.PolicyNamespaces, "the webhook's --policy-namespaces (the chart sets both alike): the operation conflict table is read from the policy data of their ConfigMaps labelled policy.sluice.io/bundle=true at each claim, as the webhook's policies read it (empty: the default table alone)")
	fs.Var(&o.HostPortRange, "runtime-node-port-range", "the ports (first-last) the controller allocates to runtimes' components on the host network (Alluxio's and Jindo's masters and workers), never one another runtime holds; recorded in each runtime's status.hostPorts")
	fs.StringVar(&o.PolicyProfile, "policy-profile", o.PolicyProfile, "the webhook's --policy-profile (the chart sets both alike): the install profile ("+strings.Join(policies.Profiles(), ", ")+") whose policy data the operation conflict table and the guards checked at reconcile start from")
	fs.IntVar(&o.Concurrency, "concurrent-reconciles", o.Concurrency, "how many runtimes of one kind reconcile at once")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "API requests per second the controller may send (negative: no client-side limit, the API server's priority and fairness applies)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "API request burst above --kube-api-qps")
	return cmd
}

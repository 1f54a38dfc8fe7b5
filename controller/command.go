package controller

import (
	"flag"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// NewCommand returns `sluice controller`.
func NewCommand() *cobra.Command {
	o := NewOptions()
	var kubeconfig string
	zapOpts := zap.Options{}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run Sluice's controller manager",
		Long: `Runs the controller manager: it binds each runtime to its Dataset, installs
and upgrades the engine's release with the Helm SDK, creates the Dataset's
PV and PVC, labels the nodes holding its cache, reports cache states from
the engine's metrics, and keeps one data operation per kind and Dataset
(releasing the holds of finished, deleted and never-stored operations).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
			cfg, err := ctrl.GetConfig()
			if kubeconfig != "" {
				cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
			}
			if err != nil {
				return fmt.Errorf("loading the kubeconfig: %w", err)
			}
			mgr, err := New(cfg, o)
			if err != nil {
				return err
			}
			return mgr.Start(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: in-cluster config, then $KUBECONFIG)")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr, "address of the Prometheus metrics endpoint (0 disables it)")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr, "address to serve Go's pprof profiles on (empty: off)")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader so that one replica reconciles at a time")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the leader-election lease (default: the Pod's)")
	fs.DurationVar(&o.ClaimGracePeriod, "claim-grace-period", o.ClaimGracePeriod, "how long a Dataset claim of an operation that does not exist is kept")
	fs.DurationVar(&o.CacheRefresh, "cache-refresh-interval", o.CacheRefresh, "how often bound runtimes' cache states are re-read from their pods' metrics (0: only on changes)")
	fs.IntVar(&o.Concurrency, "concurrent-reconciles", o.Concurrency, "how many runtimes of one kind reconcile at once")
	fs.Float32Var(&o.QPS, "kube-api-qps", o.QPS, "API requests per second the controller may send (negative: no client-side limit, the API server's priority and fairness applies)")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "API request burst above --kube-api-qps")
	goflags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(goflags)
	fs.AddGoFlagSet(goflags)
	return cmd
}

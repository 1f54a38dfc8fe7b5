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
		Long: `Runs the controller manager. Today it reconciles data operations' holds on
Datasets (releasing finished, deleted and never-stored operations, and
claiming for operations admitted without a claim); dataset binding, engines,
volumes and cache states join it as they are built.`,
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
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", o.ProbeAddr, "address of /healthz and /readyz")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader so that one replica reconciles at a time")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the leader-election lease (default: the Pod's)")
	fs.DurationVar(&o.ClaimGracePeriod, "claim-grace-period", o.ClaimGracePeriod, "how long a Dataset claim of an operation that does not exist is kept")
	fs.DurationVar(&o.CacheRefresh, "cache-refresh-interval", o.CacheRefresh, "how often bound runtimes' cache states are re-read from their pods' metrics (0: only on changes)")
	goflags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(goflags)
	fs.AddGoFlagSet(goflags)
	return cmd
}

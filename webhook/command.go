package webhook

import (
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// NewCommand returns `sluice webhook`.
func NewCommand() *cobra.Command {
	o := NewOptions()
	var kubeconfig string
	zapOpts := zap.Options{}
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Serve the policy-driven admission webhooks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
			TuneGC(o.GCPercent)
			cfg, err := restConfig(kubeconfig)
			if err != nil {
				return err
			}
			mgr, err := New(cfg, o)
			if err != nil {
				return err
			}
			ctrl.Log.WithName("webhook").Info("starting", "port", o.Port, "certDir", o.CertDir, "policyNamespaces", o.PolicyNamespaces)
			return mgr.Start(cmd.Context())
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: in-cluster config, then $KUBECONFIG)")
	goflags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(goflags)
	cmd.Flags().AddGoFlagSet(goflags)
	return cmd
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return ctrl.GetConfig()
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", kubeconfig, err)
	}
	return cfg, nil
}

// TuneGC sets the garbage collector's target to percent unless GOGC is set
// in the environment (which then wins) or percent is 0.
func TuneGC(percent int) {
	if percent > 0 && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}

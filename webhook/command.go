package webhook

import (
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
)

// NewCommand returns `sluice webhook`; connect returns the cluster's
// client configuration (the root command's --kubeconfig).
func NewCommand(connect func() (*rest.Config, error)) *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Serve the policy-driven admission webhooks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			TuneGC(o.GCPercent)
			cfg, err := connect()
			if err != nil {
				return err
			}
			mgr, err := New(cfg, o)
			if err != nil {
				return err
			}
			ctrl.Log.WithName("webhook").Info("starting", "port", o.Port, "certDir", o.CertDir, "certMode", o.Certs.Mode, "policyNamespaces", o.PolicyNamespaces)
			return mgr.Start(cmd.Context())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// TuneGC sets the garbage collector's target to percent unless GOGC is set
// in the environment (which then wins) or percent is 0.
func TuneGC(percent int) {
	if percent > 0 && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}

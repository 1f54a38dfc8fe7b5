package devcluster

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

type devOptions struct {
	assets     string
	kubeconfig string
	demo       bool
	exit       bool
}

// NewCommand returns `sluice dev`: a local control plane with Sluice
// installed and running, for trying it out and for the demo.
func NewCommand() *cobra.Command {
	o := devOptions{assets: defaultAssets(), kubeconfig: filepath.Join("bin", "dev.kubeconfig")}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run Sluice on an embedded local control plane",
		Long: `Starts etcd and kube-apiserver (from --assets, built by 'make kube-binaries'),
installs Sluice's CRDs and admission webhook configuration, runs the webhook
and the controller in-process, and writes an admin kubeconfig. With --demo it
also applies a sample Dataset and JuiceFSRuntime, lets the controller install
the engine through the Helm SDK and bind the Dataset (standing in for the
kubelet, it marks the engine's workers ready, as no nodes run here), then
applies two Pods and shows what Sluice injected.

No kubelet runs, so the CSI plugin is not part of this cluster; 'sluice csi'
serves it on a real node.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDev(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	cmd.Flags().StringVar(&o.assets, "assets", o.assets, "directory holding kube-apiserver and etcd")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig-out", o.kubeconfig, "where to write the admin kubeconfig")
	cmd.Flags().BoolVar(&o.demo, "demo", false, "apply the demo Dataset and Pods and print what was injected")
	cmd.Flags().BoolVar(&o.exit, "exit", false, "stop after start-up (and the demo) instead of serving until interrupted")
	return cmd
}

// defaultAssets is the directory of the sluice binary when it holds
// kube-apiserver (bin/ after make), else ./bin.
func defaultAssets() string {
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err == nil {
			return dir
		}
	}
	return "bin"
}

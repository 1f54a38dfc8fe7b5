package devcluster

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

type devOptions struct {
	assets     string
	chart      string
	kubeconfig string
	state      stateDir
	demo       bool
	exit       bool
	// reloadBound overrides the demo's bound on policy reload (tests).
	reloadBound time.Duration
}

// NewCommand returns `sluice dev`: a simulated cluster with Sluice
// installed and running, for trying it out and for the demo, and `sluice
// dev down`, which cleans up after a run that crashed.
func NewCommand() *cobra.Command {
	assets := defaultAssets()
	repo := filepath.Dir(assets)
	o := devOptions{
		assets: assets, chart: filepath.Join(repo, "charts", "sluice"),
		kubeconfig: filepath.Join(assets, "dev.kubeconfig"), state: stateDir(filepath.Join(assets, "dev")),
	}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run Sluice on a local simulated cluster",
		Long: `Starts a simulated cluster from the binaries in --assets (built by 'make
sim-binaries'): etcd, kube-apiserver, kube-scheduler, kube-controller-manager,
and kwok playing kubelet for five fake nodes in three zones of two regions
(pods are scheduled, go Running and Ready, but no container runs). Installs
Sluice from the platform chart (--chart, rendered with the Helm SDK): its
CRDs, RBAC, certificate Secret, policy ConfigMap and webhook configurations,
the latter pointed at a local URL instead of the chart's Service. Runs the
webhook (self-managed certificates) and the controller in-process as the
chart's ServiceAccounts, and writes an admin kubeconfig (--kubeconfig-out).
With --demo it then plays the demo story, each step as observed, and fails
on the first step that is not.

It serves until interrupted, then stops everything and removes its files.
One runs at a time (a lock in --state-dir); 'sluice dev down' stops a
running one or cleans up after one that crashed.

No kubelet runs, so the CSI plugin is not part of this cluster; 'sluice csi'
serves it on a real node.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDev(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	cmd.PersistentFlags().StringVar(&o.assets, "assets", o.assets, "directory holding the kube binaries (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok)")
	cmd.PersistentFlags().StringVar((*string)(&o.state), "state-dir", string(o.state), "where a running `sluice dev` keeps its lock, process record and temporary files")
	cmd.Flags().StringVar(&o.chart, "chart", o.chart, "the platform chart's directory (charts/sluice)")
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig-out", o.kubeconfig, "where to write the admin kubeconfig")
	cmd.Flags().BoolVar(&o.demo, "demo", false, "play the demo story once the cluster is up")
	cmd.Flags().BoolVar(&o.exit, "exit", false, "stop after start-up (and the demo) instead of serving until interrupted")
	cmd.AddCommand(&cobra.Command{
		Use:   "down",
		Short: "Stop a running `sluice dev`, or clean up after one that crashed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDown(cmd.OutOrStdout(), o.state)
		},
	})
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
	abs, err := filepath.Abs("bin")
	if err != nil {
		return "bin"
	}
	return abs
}

package main

import (
	"flag"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// clusterFlags are the flags every subcommand that talks to a cluster
// shares, defined once here: where the cluster is and how to log.
type clusterFlags struct {
	kubeconfig string
	zap        zap.Options
}

// bind adds the flags to a command that talks to a cluster and sets up its
// logging before it runs. (Commands that do not, such as policy and dev,
// neither take nor need them.)
func (f *clusterFlags) bind(cmd *cobra.Command) *cobra.Command {
	fs := cmd.Flags()
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG, then the in-cluster config, then ~/.kube/config)")
	goflags := flag.NewFlagSet("zap", flag.ContinueOnError)
	f.zap.BindFlags(goflags)
	fs.AddGoFlagSet(goflags)
	cmd.PreRun = func(*cobra.Command, []string) { ctrl.SetLogger(zap.New(zap.UseFlagOptions(&f.zap))) }
	return cmd
}

// connect returns the client configuration --kubeconfig names, or the
// usual fallbacks without it.
func (f *clusterFlags) connect() (*rest.Config, error) {
	if f.kubeconfig == "" {
		cfg, err := ctrl.GetConfig()
		if err != nil {
			return nil, fmt.Errorf("finding the cluster (no --kubeconfig given): %w", err)
		}
		return cfg, nil
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", f.kubeconfig, err)
	}
	return cfg, nil
}

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
// shares, owned by the root command: where the cluster is and how to log.
type clusterFlags struct {
	kubeconfig string
	zap        zap.Options
}

// bind adds the flags to root (inherited by every subcommand) and sets up
// logging before any subcommand runs.
func (f *clusterFlags) bind(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&f.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG, then the in-cluster config, then ~/.kube/config)")
	goflags := flag.NewFlagSet("zap", flag.ContinueOnError)
	f.zap.BindFlags(goflags)
	pf.AddGoFlagSet(goflags)
	root.PersistentPreRun = func(*cobra.Command, []string) { ctrl.SetLogger(zap.New(zap.UseFlagOptions(&f.zap))) }
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

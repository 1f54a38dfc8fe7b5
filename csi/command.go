package csi

import (
	"flag"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	mount "k8s.io/mount-utils"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// NewCommand returns `sluice csi`.
func NewCommand() *cobra.Command {
	var (
		cfg        = Config{StateDir: "/var/lib/sluice/csi", PublishTimeout: 30 * time.Second}
		kubeconfig string
		zapOpts    zap.Options
	)
	cmd := &cobra.Command{
		Use:   "csi --endpoint unix:///csi/csi.sock --nodeid NODE",
		Short: "Serve the CSI plugin (fuse.csi.fluid.io) on this node",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
			cfg.Mounter = mount.New("")
			if _, err := New(cfg); err != nil { // check the flags before touching the cluster
				return err
			}
			restCfg, err := loadConfig(kubeconfig)
			if err != nil {
				return err
			}
			cs, err := kubernetes.NewForConfig(restCfg)
			if err != nil {
				return err
			}
			cfg.Labeler = &KubeLabeler{Client: cs}
			d, err := New(cfg)
			if err != nil {
				return err
			}
			ctrl.Log.WithName("csi").Info("serving", "driver", cfg.Name, "node", cfg.NodeID, "endpoint", cfg.Endpoint)
			return d.Serve(ctrl.SetupSignalHandler())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.Endpoint, "endpoint", "unix:///csi/csi.sock", "CSI endpoint (unix socket)")
	fs.StringVar(&cfg.NodeID, "nodeid", "", "this node's name")
	fs.StringVar(&cfg.StateDir, "state-dir", cfg.StateDir, "directory for staged-volume state (a hostPath, so it survives restarts)")
	fs.DurationVar(&cfg.PublishTimeout, "publish-timeout", cfg.PublishTimeout, "how long NodePublishVolume waits for the dataset's FUSE mount")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "path to a kubeconfig for labelling nodes (default: in-cluster config)")
	fs.StringVar(&cfg.Version, "driver-version", "", "version reported by GetPluginInfo")
	goflags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(goflags)
	fs.AddGoFlagSet(goflags)
	return cmd
}

func loadConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return ctrl.GetConfig()
	}
	c, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", kubeconfig, err)
	}
	return c, nil
}

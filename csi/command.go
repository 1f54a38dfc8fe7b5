package csi

import (
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/internal/metricsauth"
)

// NewCommand returns `sluice csi`; connect returns the cluster's client
// configuration (the root command's --kubeconfig), used to label nodes.
func NewCommand(connect func() (*rest.Config, error)) *cobra.Command {
	var (
		cfg       = Config{StateDir: "/var/lib/sluice/csi", PublishTimeout: 30 * time.Second}
		recovery  = 5 * time.Second
		health    string
		metrics   string
		secure    = true
		registrar = Registrar{DriverName: DriverName}
	)
	cmd := &cobra.Command{
		Use:   "csi --endpoint unix:///csi/csi.sock --nodeid NODE",
		Short: "Serve the CSI plugin (fuse.csi.fluid.io) on this node",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Mounter = NewSyscallMounter()
			if _, err := New(cfg); err != nil { // check the flags before touching the cluster
				return err
			}
			restCfg, err := connect()
			if err != nil {
				return err
			}
			cs, err := kubernetes.NewForConfig(restCfg)
			if err != nil {
				return err
			}
			labeler := &KubeLabeler{Client: cs}
			cfg.Labeler, cfg.Fuse = labeler, labeler
			cfg.Events = &KubeEvents{Client: cs, Node: cfg.NodeID}
			d, err := New(cfg)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			pruneUpdatedb(cfg)
			if recovery > 0 {
				go d.RunRecovery(ctx, recovery)
			}
			if health != "" {
				go func() {
					if err := ServeHealth(ctx, health, cfg.Endpoint); err != nil {
						ctrl.Log.WithName("csi-health").Error(err, "liveness endpoint stopped")
					}
				}()
			}
			go func() {
				if err := ServeMetrics(ctx, metrics, secure, restCfg); err != nil {
					ctrl.Log.WithName("csi-metrics").Error(err, "metrics server stopped")
				}
			}()
			if registrar.Dir != "" {
				registrar.DriverName = d.cfg.Name // New applied the default name
				go func() {
					if err := registrar.Serve(ctx); err != nil {
						ctrl.Log.WithName("csi-registration").Error(err, "registration server stopped")
					}
				}()
			}
			ctrl.Log.WithName("csi").Info("serving", "driver", cfg.Name, "node", cfg.NodeID, "endpoint", cfg.Endpoint, "recoveryInterval", recovery)
			return d.Serve(ctx)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.Endpoint, "endpoint", "unix:///csi/csi.sock", "CSI endpoint (unix socket)")
	fs.StringVar(&cfg.NodeID, "nodeid", "", "this node's name")
	fs.StringVar(&cfg.StateDir, "state-dir", cfg.StateDir, "directory for staged-volume state (a hostPath, so it survives restarts)")
	fs.StringVar(&cfg.FuseRoot, "fuse-root", DefaultFuseRoot, "directory the engines' FUSE mounts datasets under; a volume whose fluid_path is elsewhere is refused")
	fs.DurationVar(&cfg.PublishTimeout, "publish-timeout", cfg.PublishTimeout, "how long NodePublishVolume waits for the dataset's FUSE mount")
	fs.DurationVar(&recovery, "recovery-interval", recovery, "how often FUSE recovery re-binds mounts whose FUSE restarted (0 disables it)")
	fs.StringVar(&registrar.Dir, "registration-dir", "", "the kubelet's plugin registry (e.g. /var/lib/kubelet/plugins_registry): register there instead of through node-driver-registrar")
	fs.StringVar(&registrar.Endpoint, "kubelet-endpoint", "/var/lib/kubelet/plugins/"+DriverName+"/csi.sock", "the CSI socket as the kubelet sees it, for registration")
	fs.StringVar(&cfg.Version, "driver-version", "", "version reported by GetPluginInfo")
	fs.StringVar(&cfg.PublishMethod, "node-publish-method", PublishBind, "how volumes whose PV does not set node_publish_method are published: bind (a bind mount), or symlink (a symbolic link to the FUSE mount, for volumes with no sub-path that are not read-only; the others are bind-mounted)")
	fs.StringVar(&cfg.UpdatedbConf, "updatedb-conf", "", "the node's updatedb.conf (e.g. /host-etc/updatedb.conf): at start, add --prune-fs to its PRUNEFS and the FUSE root to its PRUNEPATHS, so that updatedb does not crawl datasets (\"\" leaves it alone)")
	fs.StringSliceVar(&cfg.PruneFS, "prune-fs", DefaultPruneFS, "FUSE file-system types added to PRUNEFS (with --updatedb-conf)")
	fs.StringVar(&health, "health-addr", "", "serve GET /healthz here (e.g. :9810), answering 200 only while the CSI endpoint answers Probe: the plugin container's liveness probe")
	fs.StringVar(&metrics, "metrics-bind-address", "0", "serve Prometheus metrics here (e.g. :8080; \"0\" serves none)")
	fs.BoolVar(&secure, "metrics-secure", secure, metricsauth.FlagUsage)
	return cmd
}

// pruneUpdatedb applies --updatedb-conf; a file it cannot edit is logged,
// and the plugin serves anyway: updatedb crawling FUSE mounts costs I/O,
// not correctness.
func pruneUpdatedb(cfg Config) {
	if cfg.UpdatedbConf == "" {
		return
	}
	log := ctrl.Log.WithName("csi-updatedb")
	changed, err := PruneUpdatedb(cfg.UpdatedbConf, cfg.PruneFS, []string{cfg.FuseRoot})
	if err != nil {
		log.Error(err, "not editing updatedb.conf", "path", cfg.UpdatedbConf)
		return
	}
	log.Info("updatedb.conf prunes the FUSE mounts", "path", cfg.UpdatedbConf, "changed", changed, "pruneFS", cfg.PruneFS, "prunePath", cfg.FuseRoot)
}

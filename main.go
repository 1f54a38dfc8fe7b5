// Command sluice is Sluice's one binary: the controller, the admission
// webhook, the CSI node plugin, the policy tools and a local development
// cluster, each a subcommand.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/crds"
	"github.com/sluice-data/sluice/csi"
	"github.com/sluice-data/sluice/devcluster"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/engines/thin/rclonemount"
	"github.com/sluice-data/sluice/engines/thin/warmup"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
	"github.com/sluice-data/sluice/internal/buildinfo"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policycmd"
)

func main() {
	// The root context ends on SIGINT/SIGTERM (a second signal exits at once);
	// long-running subcommands stop with it.
	err := newRootCommand().ExecuteContext(ctrl.SetupSignalHandler())
	var exit *policycmd.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.Code)
	case err != nil:
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "sluice",
		Short:         "Kubernetes-native data orchestration and caching, driven by policy",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	flags := &clusterFlags{}
	root.AddCommand(newVersionCommand(), policycmd.NewCommand(), flags.bind(webhook.NewCommand(flags.connect)),
		flags.bind(controller.NewCommand(flags.connect, sluiceEngines)), flags.bind(csi.NewCommand(flags.connect)), devcluster.NewCommand(),
		rclonemount.NewCommand(), warmup.NewCommand(), ufsmeta.NewCommand(),
		crds.NewCommand(flags.bind(crds.NewApplyCommand(flags.connect, buildinfo.Version()))))
	return root
}

// sluiceEngines are the engines `sluice controller` runs: Sluice's, built
// once here (engines/registry), with their default images as configured.
func sluiceEngines(sluiceImage string, images engines.Images) ([]engines.Engine, error) {
	if err := registry.CheckImages(images); err != nil {
		return nil, err
	}
	return registry.Default(registry.Options{SluiceImage: sluiceImage, Images: images}), nil
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print Sluice's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "sluice %s (%s, %s/%s)\n", buildinfo.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

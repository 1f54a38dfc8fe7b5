package chart_test

import (
	"context"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// runInstalledController runs `sluice controller` as the installed
// Deployment would (runInstalled), leader election included, and scrapes
// its secure metrics until they show its Dataset-claims controller's
// workers: they start only once the controller has won its lease and its
// caches synced, as its ServiceAccount, under the chart's RBAC.
func runInstalledController(ctx context.Context, t *testing.T, c *simcluster.Cluster, ns string) {
	t.Helper()
	metrics := testenv.FreeAddr(t)
	stop := runInstalled(ctx, t, c, ns, "sluice-controller", func(cfg *rest.Config) *cobra.Command {
		return controller.NewCommand(func() (*rest.Config, error) { return cfg, nil }, func(sluiceImage string, images engines.Images) ([]engines.Engine, error) {
			return registry.Default(registry.Options{SluiceImage: sluiceImage, Images: images}), registry.CheckImages(images)
		})
	}, "--metrics-bind-address="+metrics)
	checkSecureMetrics(ctx, t, c, ns, "controller", "https://"+metrics+"/metrics", `controller_runtime_active_workers{controller="dataset-claims"}`)
	stop()
}

package inprocess

import (
	"context"
	"time"

	"k8s.io/client-go/rest"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// ControllerUser is the controller's ServiceAccount, as config/rbac binds
// its permissions.
const ControllerUser = "system:serviceaccount:sluice-system:sluice-controller"

// ControllerConfig applies config/rbac to c and returns a copy of c's
// rest config acting as the controller's ServiceAccount, so that what runs
// with it may do exactly what config/rbac grants.
func ControllerConfig(ctx context.Context, c *simcluster.Cluster) (*rest.Config, error) {
	if err := c.ApplyManifests(ctx, "rbac/*.yaml", 2); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: ControllerUser}
	return cfg, nil
}

// Controller runs `sluice controller` in-process against c as its
// ServiceAccount (ControllerConfig), as the end-to-end suites run it: no
// metrics or probe listeners, no leader election, runtimes re-read every
// 2 s, and the default engines for the options' Sluice image unless tune
// sets Engines. tune, when not nil, changes the options first. It returns
// once the controller has started.
func Controller(ctx context.Context, c *simcluster.Cluster, tune func(*controller.Options)) error {
	cfg, err := ControllerConfig(ctx, c)
	if err != nil {
		return err
	}
	o := controller.NewOptions()
	o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.CacheRefresh = "0", "0", false, 2*time.Second
	if tune != nil {
		tune(o)
	}
	if o.Engines == nil {
		o.Engines = registry.Default(registry.Options{SluiceImage: o.SluiceImage})
	}
	return controller.StartLocal(ctx, cfg, o, testenv.Stopped("controller"))
}

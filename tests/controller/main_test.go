package controller_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/tests/testenv"
)

var env *testenv.Env

// controllerMetrics is the URL of the controller's metrics endpoint.
var controllerMetrics string

// grace is the claim grace period the controller runs with in these tests.
const grace = 2 * time.Second

// metadataImage is the image of the controller's metadata Jobs in these
// tests (no kubelet pulls it).
const metadataImage = "registry.test/sluice:test"

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, e *testenv.Env) error {
		metricsAddr, err := testenv.PickFreeAddr()
		if err != nil {
			return err
		}
		controllerMetrics = "http://" + metricsAddr + "/metrics"
		o := controller.NewOptions()
		o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.ClaimGracePeriod, o.CacheRefresh = metricsAddr, "0", false, grace, time.Second
		o.SluiceImage = metadataImage
		cfg := rest.CopyConfig(e.Config)
		cfg.Wrap(controllerRequests.wrap)
		return controller.StartLocal(ctx, cfg, o, testenv.Stopped("controller"))
	}))
}

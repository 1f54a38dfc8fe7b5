package faults_test

import (
	"context"
	"fmt"
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

// faults sits between the controller and the API server.
var faults = newInjector(1)

func TestMain(m *testing.M) {
	ctrl.SetLogger(logr.Discard())
	os.Exit(testenv.MainWith(m, &env, testenv.Options{}, func(ctx context.Context, e *testenv.Env) error {
		o := controller.NewOptions()
		o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.CacheRefresh = "0", "0", false, time.Second
		o.ReleaseRetry = time.Second
		cfg := rest.CopyConfig(e.Config)
		cfg.Wrap(faults.wrap)
		mgr, err := controller.New(cfg, o)
		if err != nil {
			return err
		}
		go func() {
			if err := mgr.Start(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "controller stopped:", err)
			}
		}()
		return nil
	}))
}

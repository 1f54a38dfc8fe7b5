package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var cluster *simcluster.Cluster

// nodes are the fake nodes the tests schedule on.
var nodes []string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	c, err := simcluster.StartWith(testenv.Options{WebhookPaths: []string{filepath.Join(testenv.RepoRoot(), "config", "webhook")}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "simcluster:", err)
		return 1
	}
	cluster = c
	defer func() {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "simcluster: stopping:", err)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if nodes, err = c.AddNodes(ctx, "kwok-node", 3, 110, map[string]string{"topology.kubernetes.io/zone": "zone-a"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := inprocess.Webhook(ctx, c.Env, c.Config, 60*time.Second, nil); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		return 1
	}
	// The controller runs with exactly the permissions config/rbac grants.
	if err := inprocess.Controller(ctx, c, func(o *controller.Options) {
		o.FuseRecords = webhook.DefaultNamespace // the webhook's, as the chart sets both
		o.PolicyNamespaces = []string{webhook.DefaultNamespace}
		o.Engines = registry.Default(registry.Options{})
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

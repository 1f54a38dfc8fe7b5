package fluiddocs_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/outcomes.txt with what happened")
	only   = flag.String("pages", "", "apply only the pages whose name matches this regular expression (the outcomes are then not compared)")
)

var cluster *simcluster.Cluster

// logPath is the file the in-process controller and webhook log to.
var logPath string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	flag.Parse()
	logs, err := os.CreateTemp("", "sluice-fluiddocs-*.log")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.Remove(logs.Name())
	defer logs.Close()
	logPath = logs.Name()
	ctrl.SetLogger(zap.New(zap.WriteTo(logs)))

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
	// Enough nodes for the pages applied at once: a runtime's workers are
	// Exclusive by default, one runtime's per node. Pages that select node
	// labels get labelled nodes of their own (runPage).
	if _, err := c.AddNodes(ctx, "kwok-node", 64, 110, map[string]string{"topology.kubernetes.io/zone": "zone-a", "topology.kubernetes.io/region": "region-a"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	profile := func(o *webhook.Options) { o.PolicyProfile = policies.ProfileFluidCompatible }
	if err := inprocess.Webhook(ctx, c.Env, c.Config, 60*time.Second, profile); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		return 1
	}
	if err := inprocess.Controller(ctx, c, func(o *controller.Options) {
		o.SluiceImage = "ghcr.io/sluice-data/sluice:e2e"
		o.PolicyProfile = policies.ProfileFluidCompatible
	}); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		return 1
	}
	return m.Run()
}

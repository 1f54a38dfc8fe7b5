package e2eops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var cluster *simcluster.Cluster

// watcher is an administrator's client that also watches.
var watcher client.WithWatch

// nodes are the fake nodes the tests schedule on.
var nodes []string

// sluiceImage is the controller's --sluice-image (kwok pulls nothing).
const sluiceImage = "ghcr.io/sluice-data/sluice:e2e"

// logPath is the file the in-process controller and webhook log to; its
// end is shown when a test fails.
var logPath string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	logs, err := os.CreateTemp("", "sluice-e2eops-*.log")
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
	if watcher, err = client.NewWithWatch(c.Config, client.Options{Scheme: c.Scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if nodes, err = c.AddNodes(ctx, "kwok-node", 4, 110, map[string]string{"topology.kubernetes.io/zone": "zone-a"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := inprocess.Webhook(ctx, c.Env, c.Config, 60*time.Second, nil); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		return 1
	}
	if err := inprocess.Controller(ctx, c, func(o *controller.Options) { o.SluiceImage = sluiceImage }); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		return 1
	}
	return m.Run()
}

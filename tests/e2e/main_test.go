package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller"
	"github.com/sluice-data/sluice/tests/simcluster"
	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/certs"
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
	if err := startWebhook(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		return 1
	}
	// The controller runs with exactly the permissions config/rbac grants.
	cfg, err := controllerIdentity(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	o := controller.NewOptions()
	o.MetricsAddr, o.ProbeAddr, o.LeaderElect, o.CacheRefresh = "0", "0", false, 2*time.Second
	if err := controller.StartLocal(ctx, cfg, o, testenv.Stopped("controller")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// startWebhook runs `sluice webhook` in-process, serving the validating and
// mutating configurations envtest installed (its certificate, the CA
// injected), and waits until it is ready: Pods that use datasets are
// admitted as on a cluster with Sluice installed.
func startWebhook(ctx context.Context, c *simcluster.Cluster) error {
	if err := c.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: webhook.DefaultNamespace}}); err != nil {
		return err
	}
	wi := c.Webhook()
	o := webhook.NewOptions()
	o.Host, o.Port, o.CertDir = wi.LocalServingHost, wi.LocalServingPort, wi.LocalServingCertDir
	o.Certs.Mode = certs.Files
	o.MetricsAddr = "0"
	o.PolicyNamespaces = []string{webhook.DefaultNamespace}
	return webhook.StartLocal(ctx, c.Config, o, 60*time.Second)
}

// controllerIdentity applies config/rbac and returns a rest config acting as
// the controller's ServiceAccount.
func controllerIdentity(ctx context.Context, c *simcluster.Cluster) (*rest.Config, error) {
	if err := c.ApplyManifests(ctx, "rbac/*.yaml", 2); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:sluice-system:sluice-controller"}
	return cfg, nil
}

package chaos_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/tests/support/inprocess"
	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

var cluster *simcluster.Cluster

// sluiceBinary is `sluice` built from this tree for the test run.
var sluiceBinary string

// controllerKubeconfig acts as the controller's ServiceAccount, with
// exactly the permissions config/rbac grants.
var controllerKubeconfig string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	dir, err := os.MkdirTemp("", "sluice-chaos-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if sluiceBinary, err = buildSluice(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
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
	if _, err := c.AddNodes(ctx, "kwok-node", 4, 110, map[string]string{"topology.kubernetes.io/zone": "zone-a"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := inprocess.Webhook(ctx, c.Env, c.Config, 60*time.Second, nil); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		return 1
	}
	if err := c.ApplyManifests(ctx, "rbac/*.yaml", 2); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if controllerKubeconfig, err = impersonatingKubeconfig(c.Kubeconfig, dir, inprocess.ControllerUser); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// buildSluice builds the repository's sluice binary into dir (without the
// race detector: the controller is the program under test here, the test
// process holds the race-checked webhook).
func buildSluice(dir string) (string, error) {
	out := filepath.Join(dir, "sluice")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = testenv.RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building sluice: %v\n%s", err, b)
	}
	return out, nil
}

// impersonatingKubeconfig writes a copy of the administrator's kubeconfig
// whose user impersonates user, and returns its path.
func impersonatingKubeconfig(admin, dir, user string) (string, error) {
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		return "", err
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = user
	}
	path := filepath.Join(dir, "controller.kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

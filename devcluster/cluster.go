package devcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/internal/kubesim"
)

// devNodes are the fake nodes of the dev cluster: two zones of one region,
// and a second region, so that data affinity's locality tiers have
// something to choose from.
var devNodes = []struct {
	prefix       string
	count        int
	zone, region string
}{
	{"node-a", 2, "zone-a", "region-1"},
	{"node-b", 2, "zone-b", "region-1"},
	{"node-c", 1, "zone-c", "region-2"},
}

// devNodeMaxPods is how many pods each fake node takes. Small, so that the
// demo can fill the cache nodes.
const devNodeMaxPods = 20

// cluster is the running simulated cluster of `sluice dev`.
type cluster struct {
	env        *envtest.Environment
	components *kubesim.Components
	config     *rest.Config
	client     client.Client
	kubeconfig string
}

// startCluster starts etcd and kube-apiserver (their data and certificates
// in runDir), writes an administrator's kubeconfig, starts kube-scheduler,
// kube-controller-manager and kwok, and adds the fake nodes. On error,
// what was started is stopped.
func startCluster(ctx context.Context, out io.Writer, o devOptions, runDir string) (_ *cluster, err error) {
	if err := kubesim.CheckBinaries(o.assets); err != nil {
		return nil, err
	}
	for _, dir := range []string{"etcd", "apiserver", "logs"} {
		if err := os.MkdirAll(filepath.Join(runDir, dir), 0o700); err != nil {
			return nil, err
		}
	}
	c := &cluster{kubeconfig: o.kubeconfig}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.stop())
		}
	}()
	c.env = &envtest.Environment{
		BinaryAssetsDirectory: o.assets,
		Scheme:                sluicescheme.New(),
		ControlPlane: envtest.ControlPlane{
			Etcd:      &envtest.Etcd{DataDir: filepath.Join(runDir, "etcd")},
			APIServer: &envtest.APIServer{CertDir: filepath.Join(runDir, "apiserver")},
		},
	}
	fmt.Fprintf(out, "starting etcd and kube-apiserver from %s ...\n", o.assets)
	if c.config, err = c.env.Start(); err != nil {
		return nil, fmt.Errorf("starting the control plane (`make sim-binaries` builds it): %w", err)
	}
	if c.client, err = client.New(c.config, client.Options{Scheme: c.env.Scheme}); err != nil {
		return nil, err
	}
	if err := writeKubeconfig(c.env, o.kubeconfig); err != nil {
		return nil, err
	}
	fmt.Fprintln(out, "starting kube-scheduler, kube-controller-manager and kwok ...")
	c.components, err = kubesim.Start(ctx, kubesim.Options{BinDir: o.assets, Dir: filepath.Join(runDir, "logs"), Kubeconfig: o.kubeconfig, Client: c.client})
	if err != nil {
		return nil, err
	}
	for _, n := range devNodes {
		labels := map[string]string{"topology.kubernetes.io/zone": n.zone, "topology.kubernetes.io/region": n.region}
		names, err := kubesim.AddNodes(ctx, c.client, n.prefix, n.count, devNodeMaxPods, labels)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "  fake nodes %v in %s/%s (kwok makes them Ready)\n", names, n.region, n.zone)
	}
	return c, nil
}

// stop stops the components, then the control plane.
func (c *cluster) stop() error {
	if c.components != nil {
		c.components.Stop()
	}
	if c.env != nil && c.config != nil {
		return c.env.Stop()
	}
	return nil
}

func writeKubeconfig(env *envtest.Environment, path string) error {
	user, err := env.ControlPlane.AddUser(envtest.User{Name: "sluice-dev-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	data, err := user.KubeConfig()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

package simcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/tests/testenv"
)

// Cluster is a running simulated cluster.
type Cluster struct {
	*testenv.Env
	// Kubeconfig is an administrator's kubeconfig file for the cluster.
	Kubeconfig string

	dir   string
	procs []*Process
}

// Start starts the control plane, then kube-scheduler,
// kube-controller-manager and kwok against it. Call Stop when done.
func Start() (*Cluster, error) { return StartWith(testenv.Options{}) }

// StartWith is Start with the control plane's options, e.g. webhook
// configurations to install (testenv.Options.WebhookPaths), pointed at a
// local webhook server the caller starts (Env.Webhook says where).
func StartWith(o testenv.Options) (*Cluster, error) {
	for _, bin := range []string{"kube-scheduler", "kube-controller-manager", "kwok", "kwok-stages.yaml"} {
		if _, err := os.Stat(filepath.Join(testenv.BinDir(), bin)); err != nil {
			return nil, fmt.Errorf("%s not found in %s: run `make sim-binaries` (or `make test`, which builds it): %w", bin, testenv.BinDir(), err)
		}
	}
	env, err := testenv.StartWith(o)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Env: env}
	if err := c.start(); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start() error {
	dir, err := os.MkdirTemp("", "sluice-sim-")
	if err != nil {
		return err
	}
	c.dir = dir
	if c.Kubeconfig, err = c.WriteKubeconfig(dir); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// kwok renews node leases there.
	lease := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: corev1.NamespaceNodeLease}}
	if err := c.Client.Create(ctx, lease); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	k := c.Kubeconfig
	// Client rate limits are raised so that hundreds of pods move at once.
	qps := []string{"--kube-api-qps=500", "--kube-api-burst=1000"}
	for _, p := range []struct {
		name string
		args []string
	}{
		{"kube-scheduler", append([]string{"--kubeconfig=" + k, "--authentication-kubeconfig=" + k, "--authorization-kubeconfig=" + k,
			"--leader-elect=false", "--secure-port=0"}, qps...)},
		{"kube-controller-manager", append([]string{"--kubeconfig=" + k, "--leader-elect=false", "--secure-port=0",
			"--controllers=*,-serviceaccount-token,-serviceaccount", "--use-service-account-credentials=false",
			"--concurrent-statefulset-syncs=20"}, qps...)},
		{"kwok", []string{"--kubeconfig=" + k, "--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=" + FakeNodeAnnotation + "=fake",
			"--cidr=10.0.0.1/16", "--node-ip=10.0.0.1", "--node-lease-duration-seconds=40", "--server-address=127.0.0.1:0", "--config=" + filepath.Join(testenv.BinDir(), "kwok-stages.yaml")}},
	} {
		if _, err := c.Run(filepath.Join(testenv.BinDir(), p.name), p.args...); err != nil {
			return err
		}
	}
	return nil
}

// Check reports a component that has exited, with the end of its log.
func (c *Cluster) Check() error {
	for _, p := range c.procs {
		if !p.Running() {
			return fmt.Errorf("%s exited (%v); its log ends:\n%s", p.name, p.err, p.LogTail(30))
		}
	}
	return nil
}

// Logs returns the end of each component's log, for a failing test.
func (c *Cluster) Logs(lines int) string {
	var b strings.Builder
	for _, p := range c.procs {
		fmt.Fprintf(&b, "=== %s (%s)\n%s\n", p.name, p.log, p.LogTail(lines))
	}
	return b.String()
}

// Stop stops the components and the control plane and removes the
// cluster's files.
func (c *Cluster) Stop() error {
	var errs []error
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].stop()
	}
	if c.Env != nil {
		errs = append(errs, c.Env.Stop())
	}
	if c.dir != "" {
		errs = append(errs, os.RemoveAll(c.dir))
	}
	return errors.Join(errs...)
}

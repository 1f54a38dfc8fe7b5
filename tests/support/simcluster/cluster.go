package simcluster

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/sluice-data/sluice/internal/kubesim"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// Cluster is a running simulated cluster.
type Cluster struct {
	*testenv.Env
	// Kubeconfig is an administrator's kubeconfig file for the cluster.
	Kubeconfig string

	dir        string
	components *kubesim.Components
}

// Process is a program running against the cluster (a component, or the
// controller a benchmark measures), logging to a file in the cluster's
// directory and stopped with the cluster.
type Process = kubesim.Process

// FakeNodeAnnotation marks the nodes kwok manages.
const FakeNodeAnnotation = kubesim.FakeNodeAnnotation

// Start starts the control plane, then kube-scheduler,
// kube-controller-manager and kwok against it. Call Stop when done.
func Start() (*Cluster, error) { return StartWith(testenv.Options{}) }

// StartWith is Start with the control plane's options, e.g. webhook
// configurations to install (testenv.Options.WebhookPaths), pointed at a
// local webhook server the caller starts (Env.Webhook says where).
func StartWith(o testenv.Options) (*Cluster, error) {
	if err := kubesim.CheckBinaries(testenv.BinDir()); err != nil {
		return nil, err
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
	c.components, err = kubesim.Start(ctx, kubesim.Options{BinDir: testenv.BinDir(), Dir: dir, Kubeconfig: c.Kubeconfig, Client: c.Client})
	return err
}

// Run starts the program at path with args; it is killed if the test
// process dies, and stopped by Stop.
func (c *Cluster) Run(path string, args ...string) (*Process, error) {
	return c.components.Run(path, args...)
}

// AddNodes creates fake nodes named <prefix>-0 … <prefix>-<n-1>, with the
// given labels besides kubernetes.io/hostname, each able to run maxPods
// pods. kwok makes them Ready.
func (c *Cluster) AddNodes(ctx context.Context, prefix string, n, maxPods int, labels map[string]string) ([]string, error) {
	return kubesim.AddNodes(ctx, c.Client, prefix, n, maxPods, labels)
}

// AddNamedNodes is AddNodes with the nodes' names.
func (c *Cluster) AddNamedNodes(ctx context.Context, names []string, maxPods int, labels map[string]string) error {
	return kubesim.AddNamedNodes(ctx, c.Client, names, maxPods, labels)
}

// Check reports a component that has exited, with the end of its log.
func (c *Cluster) Check() error { return c.components.Check() }

// Logs returns the end of each component's log, for a failing test.
func (c *Cluster) Logs(lines int) string { return c.components.Logs(lines) }

// Stop stops the components and the control plane and removes the
// cluster's files.
func (c *Cluster) Stop() error {
	var errs []error
	if c.components != nil {
		c.components.Stop()
	}
	if c.Env != nil {
		errs = append(errs, c.Env.Stop())
	}
	if c.dir != "" {
		errs = append(errs, os.RemoveAll(c.dir))
	}
	return errors.Join(errs...)
}

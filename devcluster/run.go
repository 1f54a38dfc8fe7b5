package devcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/devcluster/demo"
)

// runDev runs `sluice dev`: it takes the state directory's lock (cleaning
// up after a crashed run), starts the simulated cluster, installs Sluice
// from the platform chart, runs the webhook and the controller, and serves
// until ctx ends (or, with o.exit, returns after start-up and the demo).
// Everything it started is stopped and its run directory removed on return.
func runDev(ctx context.Context, out io.Writer, o devOptions) (err error) {
	ctrl.SetLogger(logr.Discard())
	start := time.Now()
	lock, err := o.state.acquire()
	if err != nil {
		return err
	}
	if err := o.state.cleanStale(out); err != nil {
		_ = lock.release(o.state)
		return fmt.Errorf("cleaning up after the previous run: %w", err)
	}
	runDir := o.state.runDir()
	c, err := startCluster(ctx, out, o, runDir)
	if err != nil {
		return errors.Join(err, lock.release(o.state))
	}
	// Components stop before the cluster, the cluster before the lock goes.
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		err = errors.Join(err, c.stop(), lock.release(o.state), os.Remove(o.kubeconfig))
		fmt.Fprintln(out, "sluice dev stopped; its processes and temporary files are gone")
	}()
	if err := o.state.write(newRecord(o)); err != nil {
		return err
	}
	// Go's own log (the webhook's HTTP server logs TLS handshakes refused
	// while its first certificate is being issued) goes to the run's logs.
	stdlog, err := os.Create(filepath.Join(runDir, "logs", "sluice.log"))
	if err != nil {
		return err
	}
	defer stdlog.Close()
	log.SetOutput(stdlog)
	defer log.SetOutput(os.Stderr)
	port, err := freePort()
	if err != nil {
		return err
	}
	if err := install(ctx, out, c.client, c.config, o.chart, webhookURL(port)); err != nil {
		return err
	}
	failed := make(chan error, 2)
	if err := startWebhook(ctx, c.config, port, runDir); err != nil {
		return err
	}
	if err := startController(ctx, c.config, failed); err != nil {
		return err
	}
	kubectl := "kubectl"
	if _, err := os.Stat(filepath.Join(o.assets, "kubectl")); err == nil {
		kubectl = filepath.Join(o.assets, "kubectl")
	}
	fmt.Fprintf(out, `Sluice dev cluster ready in %s: API server %s, %d fake nodes, the webhook (%s) and the controller running.
  export KUBECONFIG=%s
  %s get nodes -L topology.kubernetes.io/zone
  %s apply -f config/samples/demo.yaml
`, time.Since(start).Round(100*time.Millisecond), c.config.Host, nodeCount(), webhookURL(port), o.kubeconfig, kubectl, kubectl)
	if o.demo {
		if err := demo.Run(ctx, demo.Cluster{Client: c.client, Config: c.config, Namespace: namespace, Check: c.components.Check, ReloadBound: o.reloadBound}, out); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	if o.exit {
		return nil
	}
	fmt.Fprintln(out, "serving until interrupted (Ctrl-C)")
	select {
	case <-ctx.Done():
		return nil
	case err := <-failed:
		return err
	}
}

func newRecord(o devOptions) *record {
	rec := &record{Pid: os.Getpid(), Started: time.Now(), Kubeconfig: o.kubeconfig}
	// etcd and kube-apiserver survive a crash of this process (envtest
	// starts them in process groups of their own); the rest are killed with
	// it. Record all, for `sluice dev down`.
	rec.Children, _ = childrenOf(os.Getpid())
	return rec
}

func nodeCount() int {
	n := 0
	for _, d := range devNodes {
		n += d.count
	}
	return n
}

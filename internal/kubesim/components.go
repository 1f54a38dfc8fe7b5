package kubesim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Binaries are the files Start needs in its bin directory, besides the
// control plane's etcd and kube-apiserver.
var Binaries = []string{"kube-scheduler", "kube-controller-manager", "kwok", "kwok-stages.yaml"}

// Options say where the components come from and which cluster they join.
type Options struct {
	// BinDir holds the Binaries.
	BinDir string
	// Dir is an existing directory for the components' logs.
	Dir string
	// Kubeconfig is an administrator's kubeconfig file for the control
	// plane.
	Kubeconfig string
	// Client reaches the control plane as an administrator.
	Client client.Client
}

// Components are the running scheduler, controller-manager and kwok, and
// any further programs started with Run.
type Components struct {
	dir   string
	procs []*Process
}

// CheckBinaries fails, saying how to build them, when a file of Binaries
// is missing from binDir.
func CheckBinaries(binDir string) error {
	for _, bin := range Binaries {
		if _, err := os.Stat(filepath.Join(binDir, bin)); err != nil {
			return fmt.Errorf("%s not found in %s: run `make sim-binaries` (or `make test`, which builds it): %w", bin, binDir, err)
		}
	}
	return nil
}

// Start starts kube-scheduler, kube-controller-manager and kwok against
// the control plane. On error, what was started is stopped.
func Start(ctx context.Context, o Options) (*Components, error) {
	if err := CheckBinaries(o.BinDir); err != nil {
		return nil, err
	}
	// kwok renews node leases there.
	lease := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: corev1.NamespaceNodeLease}}
	if err := o.Client.Create(ctx, lease); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("creating namespace %s: %w", corev1.NamespaceNodeLease, err)
	}
	c := &Components{dir: o.Dir}
	k := o.Kubeconfig
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
			"--cidr=10.0.0.1/16", "--node-ip=10.0.0.1", "--node-lease-duration-seconds=40", "--server-address=127.0.0.1:0", "--config=" + filepath.Join(o.BinDir, "kwok-stages.yaml")}},
	} {
		if _, err := c.Run(filepath.Join(o.BinDir, p.name), p.args...); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// Processes are the running programs, in the order they were started.
func (c *Components) Processes() []*Process { return c.procs }

// Check reports a component that has exited, with the end of its log.
func (c *Components) Check() error {
	for _, p := range c.procs {
		if !p.Running() {
			return fmt.Errorf("%s exited (%v); its log ends:\n%s", p.name, p.err, p.LogTail(30))
		}
	}
	return nil
}

// Logs returns the end of each component's log, for a failing test.
func (c *Components) Logs(lines int) string {
	var b strings.Builder
	for _, p := range c.procs {
		fmt.Fprintf(&b, "=== %s (%s)\n%s\n", p.name, p.log, p.LogTail(lines))
	}
	return b.String()
}

// Stop stops the programs, last started first.
func (c *Components) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].stop()
	}
}

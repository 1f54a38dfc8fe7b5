package chart_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/sluice-data/sluice/tests/support/simcluster"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// envMu serialises withEnv: a process has one environment.
var envMu sync.Mutex

// withEnv runs f with env set in the process's environment and restores
// what was there after. The components read their environment when their
// command is built (the flags' defaults), so that is all f does: the
// cluster tests run in parallel, where t.Setenv is refused.
func withEnv(env map[string]string, f func()) {
	envMu.Lock()
	defer envMu.Unlock()
	for k, v := range env {
		if old, set := os.LookupEnv(k); set {
			defer func() { _ = os.Setenv(k, old) }()
		} else {
			defer func() { _ = os.Unsetenv(k) }()
		}
		_ = os.Setenv(k, v)
	}
	f()
}

// runInstalled runs an installed component (Deployment name in ns)
// in-process as its Pod would (kwok only pretends to run Pods): the
// container's arguments and SLUICE_* environment, as its ServiceAccount
// (impersonated, so that the chart's RBAC is all it may do), with extra
// flags appended (local addresses, a temporary directory) and a local
// health probe. newCmd builds the component's command for the rest config.
// It returns once /readyz answers 200, with the function that stops the
// component and reports how it ended; a failed test prints its logs.
func runInstalled(ctx context.Context, t *testing.T, c *simcluster.Cluster, ns, name string, newCmd func(*rest.Config) *cobra.Command, extra ...string) (stop func()) {
	t.Helper()
	dep := &appsv1.Deployment{}
	if err := c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, dep); err != nil {
		t.Fatal(err)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	env := map[string]string{"POD_NAMESPACE": ns} // the Deployment's fieldRef
	for _, e := range ctr.Env {
		if strings.HasPrefix(e.Name, "SLUICE_") {
			env[e.Name] = e.Value
		}
	}
	var args []string
	for _, a := range ctr.Args[1:] { // after the subcommand
		if !strings.HasPrefix(a, "--zap-") { // the root command's logging flags
			args = append(args, a)
		}
	}
	probe := testenv.FreeAddr(t)
	args = append(append(args, extra...), "--health-probe-bind-address="+probe)
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + ns + ":" + dep.Spec.Template.Spec.ServiceAccountName,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	logs := &testenv.LockedBuffer{}
	ctrl.SetLogger(zap.New(zap.WriteTo(logs)))
	var cmd *cobra.Command
	withEnv(env, func() { cmd = newCmd(cfg) })
	cmd.SetArgs(args)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(runCtx) }()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s %s:\n%s", name, strings.Join(args, " "), logs.String())
		}
	})

	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		select {
		case err := <-done:
			stopped = true
			return false, fmt.Errorf("%s stopped: %v", name, err)
		default:
		}
		resp, err := http.Get("http://" + probe + "/readyz")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("the installed %s did not become ready: %v", name, err)
	}
	t.Logf("the installed %s was ready after %v", name, time.Since(start).Round(100*time.Millisecond))
	return stop
}

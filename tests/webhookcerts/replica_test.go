package webhookcerts_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// replica is `sluice webhook` running in a child process.
type replica struct {
	name    string
	addr    string // the webhook server, 127.0.0.1:port
	probe   string // /healthz and /readyz
	metrics string // /metrics, "" when off
	certDir string
	cmd     *exec.Cmd
	out     *testenv.LockedBuffer
	done    chan struct{} // closed when the process has ended
	// exitedAt is when the process ended, once done is closed.
	exitedAt time.Time
}

// replicaOptions are what differs between the replicas of the tests.
type replicaOptions struct {
	metrics bool
	env     map[string]string // the chart's SLUICE_WEBHOOK_* variables
	args    []string          // further flags
	// addr and probe, when set, are the addresses to serve on (a replica
	// restarted in place); otherwise free ones are picked.
	addr, probe string
}

// startReplica starts a replica in namespace and stops it (SIGTERM) when
// the test ends, logging its output if the test failed. It returns once the
// replica listens on its addresses. The ports are picked before the child
// binds them, and another process can take one in between: a replica that
// exits because an address is in use is started again on new ones, unless
// its addresses were given (o.addr).
func startReplica(t *testing.T, name, namespace string, o replicaOptions) *replica {
	t.Helper()
	for attempt := 1; ; attempt++ {
		r := launchReplica(t, name, namespace, o)
		err := r.waitListening(30 * time.Second)
		if err == nil || attempt == 5 || o.addr != "" || !strings.Contains(r.out.String(), "address already in use") {
			return r
		}
		t.Logf("replica %s: %v; starting it again on other ports", name, err)
	}
}

// launchReplica starts one replica process on newly picked addresses.
func launchReplica(t *testing.T, name, namespace string, o replicaOptions) *replica {
	t.Helper()
	r := &replica{name: name, addr: o.addr, probe: o.probe, certDir: t.TempDir(), out: &testenv.LockedBuffer{}, done: make(chan struct{})}
	if r.addr == "" {
		r.addr = testenv.FreeAddr(t)
	}
	if r.probe == "" {
		r.probe = testenv.FreeAddr(t)
	}
	_, port, _ := net.SplitHostPort(r.addr)
	args := []string{
		"--host=127.0.0.1", "--port=" + port, "--cert-dir=" + r.certDir,
		"--health-probe-bind-address=" + r.probe, "--metrics-bind-address=0",
		"--namespace=" + namespace, "--policy-namespaces=" + namespace, "--native-sidecars=true",
		// Stopped at once unless a test asks for a delay in o.args (the
		// last flag wins): no Service sends a test's replica connections
		// it would have to drain.
		"--shutdown-delay=0s",
	}
	if o.metrics {
		r.metrics = testenv.FreeAddr(t)
		args[4] = "--metrics-bind-address=" + r.metrics
	}
	encoded, err := json.Marshal(append(args, o.args...))
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(os.Args[0], "-test.run=^TestHelperWebhookProcess$")
	r.cmd.Env = append(os.Environ(), argsEnv+"="+string(encoded), "KUBECONFIG="+kubeconfigPath)
	for k, v := range o.env {
		r.cmd.Env = append(r.cmd.Env, k+"="+v)
	}
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); r.exitedAt = time.Now(); close(r.done) }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
			_ = r.cmd.Process.Kill()
			<-r.done
		}
		if t.Failed() {
			t.Logf("replica %s output:\n%s", r.name, r.out.String())
		}
	})
	return r
}

// waitListening waits until the replica accepts connections on its
// webhook and probe addresses (and metrics, if on), or exits.
func (r *replica) waitListening(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := r.exited(); err != nil {
			return err
		}
		listening := true
		for _, a := range []string{r.addr, r.probe, r.metrics} {
			if a == "" {
				continue
			}
			conn, err := net.DialTimeout("tcp", a, time.Second)
			if err != nil {
				listening = false
				break
			}
			conn.Close()
		}
		if listening {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("replica %s does not listen after %v", r.name, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// terminate sends the replica SIGTERM, as the kubelet does to the
// container of a Pod being deleted, and returns when it was sent.
func (r *replica) terminate(t *testing.T) time.Time {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM to replica %s: %v", r.name, err)
	}
	return time.Now()
}

// waitExited waits until the process has ended.
func (r *replica) waitExited(timeout time.Duration) error {
	select {
	case <-r.done:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("replica %s still runs %v after SIGTERM", r.name, timeout)
	}
}

// readyz returns nil when the replica is ready, else what /readyz says.
func (r *replica) readyz() error { return r.get("/readyz") }

// certificateCheck is the certificate readiness check alone, with its
// reason (/readyz withholds reasons).
func (r *replica) certificateCheck() error { return r.get("/readyz/certificate") }

func (r *replica) get(path string) error {
	resp, err := http.Get("http://" + r.probe + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %d: %s", path, resp.StatusCode, body)
	}
	return nil
}

// served returns the certificate the replica presents, nil while it
// presents none.
func (r *replica) served() *x509.Certificate {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", r.addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the presented certificate only
	if err != nil {
		return nil
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// exited is an error once the process has ended, with the last lines
// it wrote (the reason it gave is among them).
func (r *replica) exited() error {
	select {
	case <-r.done:
		lines := strings.Split(strings.TrimSpace(r.out.String()), "\n")
		return fmt.Errorf("replica %s exited (%v), its last output:\n%s", r.name, r.cmd.ProcessState, strings.Join(lines[max(0, len(lines)-3):], "\n"))
	default:
		return nil
	}
}

// port is addr's port.
func port(addr string) int {
	_, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return n
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

package chaos_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// controller is one run of `sluice controller` in a child process, logging
// to a file of its own.
type controller struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startController starts `sluice controller` as the controller's
// ServiceAccount, logging into dir as controller-<n>.log. Leader election
// is off: a killed controller holds no lease, and the next one would wait
// for the lease to expire before it reconciled.
func startController(dir string, n int) (*controller, error) {
	log := filepath.Join(dir, fmt.Sprintf("controller-%02d.log", n))
	f, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sluiceBinary, "controller", "--kubeconfig", controllerKubeconfig, "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=0")
	cmd.Stdout, cmd.Stderr = f, f
	// The controller dies with the test process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting sluice controller: %w", err)
	}
	c := &controller{cmd: cmd, log: log, done: make(chan struct{})}
	go func() { c.err = cmd.Wait(); f.Close(); close(c.done) }()
	return c, nil
}

// exited reports an error when the controller has exited by itself.
func (c *controller) exited() error {
	select {
	case <-c.done:
		return fmt.Errorf("the controller exited (%v); its log ends:\n%s", c.err, c.logTail(30))
	default:
		return nil
	}
}

// kill sends SIGKILL and waits until the process is gone: no deferred
// write, no lease release, no graceful shutdown of any kind.
func (c *controller) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// logTail returns the last n lines of the controller's log.
func (c *controller) logTail(n int) string {
	data, err := os.ReadFile(c.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

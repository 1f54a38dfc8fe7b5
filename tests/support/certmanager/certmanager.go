package certmanager

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/sluice-data/sluice/tests/support/testenv"
)

// Binaries are the commands Start runs, from testenv.BinDir().
var Binaries = []string{"cert-manager-controller", "cert-manager-cainjector"}

// CRDsFile is cert-manager's CRDs as one YAML stream, written by
// `make certmanager-binaries` from the pinned cert-manager module.
func CRDsFile() string { return filepath.Join(testenv.BinDir(), "cert-manager-crds.yaml") }

// InstallCRDs installs cert-manager's CRDs and waits until they are served.
func InstallCRDs(cfg *rest.Config) error {
	if _, err := os.Stat(CRDsFile()); err != nil {
		return fmt.Errorf("cert-manager's CRDs: run `make certmanager-binaries`: %w", err)
	}
	_, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{CRDsFile()}, ErrorIfPathMissing: true})
	return err
}

// CertManager is cert-manager's controller and cainjector running against
// one API server.
type CertManager struct {
	procs []*process
}

type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// Start runs the controller and the cainjector with the kubeconfig, each
// logging to a file in dir. ClusterIssuers' Secrets are read from
// clusterResourceNamespace. Stop them with Stop.
func Start(kubeconfig, dir, clusterResourceNamespace string) (*CertManager, error) {
	m := &CertManager{}
	args := map[string][]string{
		"cert-manager-controller": {"--kubeconfig=" + kubeconfig, "--leader-elect=false", "--cluster-resource-namespace=" + clusterResourceNamespace},
		"cert-manager-cainjector": {"--kubeconfig=" + kubeconfig, "--leader-elect=false"},
	}
	for _, name := range Binaries {
		path := filepath.Join(testenv.BinDir(), name)
		if _, err := os.Stat(path); err != nil {
			m.Stop()
			return nil, fmt.Errorf("%s not found: run `make certmanager-binaries`: %w", name, err)
		}
		log := filepath.Join(dir, name+".log")
		f, err := os.Create(log)
		if err != nil {
			m.Stop()
			return nil, err
		}
		cmd := exec.Command(path, args[name]...)
		cmd.Stdout, cmd.Stderr = f, f
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			f.Close()
			m.Stop()
			return nil, fmt.Errorf("starting %s: %w", name, err)
		}
		p := &process{name: name, cmd: cmd, log: log, done: make(chan struct{})}
		go func() { p.err = cmd.Wait(); f.Close(); close(p.done) }()
		m.procs = append(m.procs, p)
	}
	return m, nil
}

// Check returns an error naming each process that has exited, with the end
// of its log.
func (m *CertManager) Check() error {
	var errs []error
	for _, p := range m.procs {
		select {
		case <-p.done:
			errs = append(errs, fmt.Errorf("%s exited (%v):\n%s", p.name, p.err, tail(p.log, 20)))
		default:
		}
	}
	return errors.Join(errs...)
}

// Logs returns the last n lines of each process's log.
func (m *CertManager) Logs(n int) string {
	var b strings.Builder
	for _, p := range m.procs {
		fmt.Fprintf(&b, "--- %s (%s)\n%s\n", p.name, p.log, tail(p.log, n))
	}
	return b.String()
}

// Stop asks each process to end and kills it after 10 s.
func (m *CertManager) Stop() {
	for _, p := range m.procs {
		select {
		case <-p.done:
			continue
		default:
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

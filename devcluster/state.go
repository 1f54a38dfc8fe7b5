package devcluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// stateDir is where one `sluice dev` keeps what a later run, or `sluice
// dev down`, needs to find it: a lock held while it runs, a record of its
// processes, and the run directory with the control plane's data, the
// certificates and the components' logs.
type stateDir string

func (d stateDir) lockPath() string   { return filepath.Join(string(d), "lock") }
func (d stateDir) recordPath() string { return filepath.Join(string(d), "state.json") }

// runDir holds everything a run writes besides the kubeconfig; it is
// removed when the run stops.
func (d stateDir) runDir() string { return filepath.Join(string(d), "run") }

// record is what a running `sluice dev` writes to state.json.
type record struct {
	Pid        int       `json:"pid"`
	Started    time.Time `json:"started"`
	Kubeconfig string    `json:"kubeconfig"`
	// Children are the programs it started (etcd, kube-apiserver, the
	// scheduler, controller-manager and kwok), to be stopped after a crash.
	Children []child `json:"children"`
}

type child struct {
	Pid int    `json:"pid"`
	Exe string `json:"exe"`
}

// lock is a held state-directory lock.
type lock struct{ f *os.File }

// errRunning says another `sluice dev` holds the lock.
type errRunning struct{ rec *record }

func (e errRunning) Error() string {
	if e.rec == nil {
		return "another `sluice dev` is running (it holds the state directory's lock); stop it with Ctrl-C in its terminal or run `sluice dev down`"
	}
	return fmt.Sprintf("another `sluice dev` is running (pid %d, since %s): use it with `export KUBECONFIG=%s`, or stop it with Ctrl-C in its terminal or `sluice dev down`",
		e.rec.Pid, e.rec.Started.Format(time.TimeOnly), e.rec.Kubeconfig)
}

// acquire takes the state directory's lock, or returns errRunning.
func (d stateDir) acquire() (*lock, error) {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(d.lockPath(), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			rec, _ := d.read()
			return nil, errRunning{rec}
		}
		return nil, fmt.Errorf("locking %s: %w", d.lockPath(), err)
	}
	return &lock{f}, nil
}

// release removes the record and the run directory and unlocks.
func (l *lock) release(d stateDir) error {
	errs := []error{os.Remove(d.recordPath()), os.RemoveAll(d.runDir())}
	if errors.Is(errs[0], os.ErrNotExist) {
		errs[0] = nil
	}
	errs = append(errs, l.f.Close())
	return errors.Join(errs...)
}

func (d stateDir) read() (*record, error) {
	data, err := os.ReadFile(d.recordPath())
	if err != nil {
		return nil, err
	}
	rec := &record{}
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("%s: %w", d.recordPath(), err)
	}
	return rec, nil
}

func (d stateDir) write(rec *record) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp := d.recordPath() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, d.recordPath())
}

// cleanStale, with the lock held, stops the processes a crashed run left
// and removes its files. It says what it did on out.
func (d stateDir) cleanStale(out io.Writer) error {
	rec, err := d.read()
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(d.runDir()); err == nil {
			fmt.Fprintf(out, "removing %s, left by a run that did not stop\n", d.runDir())
		}
		return os.RemoveAll(d.runDir())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cleaning up after `sluice dev` pid %d (started %s), which did not stop\n", rec.Pid, rec.Started.Format(time.DateTime))
	var errs []error
	for _, c := range rec.Children {
		if !sameProcess(c) {
			continue
		}
		fmt.Fprintf(out, "  stopping %s (pid %d)\n", filepath.Base(c.Exe), c.Pid)
		errs = append(errs, stopProcess(c))
	}
	errs = append(errs, os.RemoveAll(d.runDir()), os.Remove(d.recordPath()))
	if rec.Kubeconfig != "" {
		if err := os.Remove(rec.Kubeconfig); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sameProcess reports whether pid still runs the recorded program (and
// was not reused by another one).
func sameProcess(c child) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", c.Pid))
	return err == nil && exe == c.Exe
}

// stopProcess sends SIGTERM, then SIGKILL after 10 s.
func stopProcess(c child) error {
	if err := syscall.Kill(c.Pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stopping pid %d: %w", c.Pid, err)
	}
	for range 100 {
		if !sameProcess(c) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return syscall.Kill(c.Pid, syscall.SIGKILL)
}

// childrenOf lists the running processes whose parent is pid.
func childrenOf(pid int) ([]child, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []child
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state, ppid, ...
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p))
		if err != nil {
			continue
		}
		out = append(out, child{Pid: p, Exe: exe})
	}
	return out, nil
}

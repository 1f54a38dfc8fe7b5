package kubesim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is a program running against the cluster (a component, or the
// controller a benchmark measures), logging to a file in the components'
// directory and stopped with them.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// Programs returns Components that run only the programs started with Run,
// logging into dir (which must exist): no scheduler, controller-manager or
// kwok, for a measurement against a bare control plane.
func Programs(dir string) *Components { return &Components{dir: dir} }

// Run starts the program at path with args, logging to a file in the
// components' directory; it is killed if this process dies, and stopped by
// Stop.
func (c *Components) Run(path string, args ...string) (*Process, error) {
	name := filepath.Base(path)
	log := filepath.Join(c.dir, fmt.Sprintf("%s-%d.log", name, len(c.procs)))
	f, err := os.Create(log)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); f.Close(); close(p.done) }()
	c.procs = append(c.procs, p)
	return p, nil
}

// Running reports whether the process has not exited.
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Name is the program's file name.
func (p *Process) Name() string { return p.name }

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogPath is the file the process logs to.
func (p *Process) LogPath() string { return p.log }

// LogTail returns the last n lines of the process's log.
func (p *Process) LogTail(n int) string {
	data, err := os.ReadFile(p.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// PeakRSS is the process's high-water resident set size (VmHWM) in bytes,
// or -1 when it cannot be read.
func (p *Process) PeakRSS() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on
// every architecture Linux runs Go on).
const userHZ = 100

// CPUTime is the user and system CPU time the process has used so far,
// or -1 when it cannot be read.
func (p *Process) CPUTime() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is the first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	if i < 0 || len(fields) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(utime+stime) * time.Second / userHZ
}

// stop asks the process to end and kills it after 10 s.
func (p *Process) stop() {
	if !p.Running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

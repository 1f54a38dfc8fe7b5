package devcluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// runDown is `sluice dev down`: it asks a running `sluice dev` to stop
// (SIGTERM, as Ctrl-C) and waits for it, then stops whatever a crashed run
// left behind and removes its files.
func runDown(out io.Writer, d stateDir) error {
	lock, err := d.acquire()
	stopped := false
	var running errRunning
	if errors.As(err, &running) {
		if running.rec == nil {
			return fmt.Errorf("a `sluice dev` holds %s but left no record of its pid: stop it with Ctrl-C in its terminal", d.lockPath())
		}
		fmt.Fprintf(out, "stopping `sluice dev` pid %d ...\n", running.rec.Pid)
		if err := syscall.Kill(running.rec.Pid, syscall.SIGTERM); err != nil {
			return fmt.Errorf("stopping pid %d: %w", running.rec.Pid, err)
		}
		deadline := time.Now().Add(time.Minute)
		for errors.As(err, &running) && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			lock, err = d.acquire()
		}
		stopped = err == nil
	}
	if err != nil {
		return err
	}
	defer lock.f.Close()
	_, recErr := os.Stat(d.recordPath())
	_, runErr := os.Stat(d.runDir())
	switch {
	case recErr != nil && runErr != nil && stopped:
		fmt.Fprintln(out, "stopped; it removed its processes and files")
		return nil
	case recErr != nil && runErr != nil:
		fmt.Fprintf(out, "no `sluice dev` running and nothing left in %s\n", d)
		return nil
	}
	if err := d.cleanStale(out); err != nil {
		return err
	}
	fmt.Fprintln(out, "cleaned up")
	return nil
}

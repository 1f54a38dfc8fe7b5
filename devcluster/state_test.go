package devcluster

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A second `sluice dev` while one runs is refused, naming the running one.
func TestSecondRunIsRefused(t *testing.T) {
	d := stateDir(t.TempDir())
	first, err := d.acquire()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.write(&record{Pid: 4242, Started: time.Now(), Kubeconfig: "/x/dev.kubeconfig"}); err != nil {
		t.Fatal(err)
	}
	_, err = d.acquire()
	var running errRunning
	if !errors.As(err, &running) {
		t.Fatalf("second acquire: %v, want errRunning", err)
	}
	for _, want := range []string{"another `sluice dev` is running (pid 4242", "KUBECONFIG=/x/dev.kubeconfig", "sluice dev down"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := first.release(d); err != nil {
		t.Fatal(err)
	}
	again, err := d.acquire()
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	_ = again.release(d)
}

// After a crash, cleanStale (run by `sluice dev down` and by the next
// `sluice dev`) stops the recorded processes still running the recorded
// program and removes the run directory, the record and the kubeconfig.
func TestCleanStaleStopsRecordedProcesses(t *testing.T) {
	d := stateDir(t.TempDir())
	l, err := d.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer l.f.Close()
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- sleep.Wait() }()
	kids, err := childrenOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var rec record
	for _, k := range kids {
		if k.Pid == sleep.Process.Pid {
			rec.Children = append(rec.Children, k)
		}
	}
	if len(rec.Children) != 1 {
		t.Fatalf("childrenOf did not find the sleep child %d among %v", sleep.Process.Pid, kids)
	}
	// A recorded pid now running another program is left alone.
	rec.Children = append(rec.Children, child{Pid: os.Getpid(), Exe: "/not/this/program"})
	rec.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	for _, f := range []string{rec.Kubeconfig, filepath.Join(d.runDir(), "etcd", "member")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.write(&rec); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := d.cleanStale(&out); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the recorded sleep was not stopped")
	}
	for _, gone := range []string{d.runDir(), d.recordPath(), rec.Kubeconfig} {
		if _, err := os.Stat(gone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not removed (%v)", gone, err)
		}
	}
	if !strings.Contains(out.String(), "stopping sleep (pid") {
		t.Errorf("cleanStale did not say what it stopped:\n%s", out.String())
	}
}

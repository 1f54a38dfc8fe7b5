package csi_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

const fuseControl = "/sys/fs/fuse/connections"

// crashFuse makes the FUSE process cmd, serving the mount at dir, die as a
// crashed one does: the mount stays, and every access to it fails with
// ENOTCONN. It aborts the mount's FUSE connection before killing the
// process: a process killed while it holds a file open on its own mount
// would otherwise hang in exit, waiting for itself to answer the close.
func crashFuse(t *testing.T, cmd *exec.Cmd, dir string) {
	t.Helper()
	if err := abortFuse(dir); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// abortFuse aborts the FUSE connection of the mount at dir through the
// fusectl file system (mounted first if it is not).
func abortFuse(dir string) error {
	dev, err := mountDevice(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(fuseControl, dev)); errors.Is(err, os.ErrNotExist) {
		if err := unix.Mount("none", fuseControl, "fusectl", 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
			return fmt.Errorf("mounting fusectl: %w", err)
		}
	}
	return os.WriteFile(filepath.Join(fuseControl, dev, "abort"), []byte("1"), 0o200)
}

// mountDevice returns the minor device number of the mount at dir, which
// names its FUSE connection, read from mountinfo (a stat of the mount
// itself could block on the FUSE process).
func mountDevice(dir string) (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 4 && fields[4] == dir {
			_, minor, ok := strings.Cut(fields[2], ":")
			if ok {
				return minor, nil
			}
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mount at %s", dir)
}

package ufsmeta

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sluice-data/sluice/engines"
)

// tree makes files (path: size) under a new directory and returns it.
func tree(t *testing.T, files map[string]int) string {
	t.Helper()
	root := t.TempDir()
	for p, size := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCountSumsRegularFiles(t *testing.T) {
	root := tree(t, map[string]int{"a": 10, "train/b": 100, "train/deep/er/c": 1000, "empty": 0})
	if err := os.MkdirAll(filepath.Join(root, "emptydir/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Links are not followed, nor counted: one to a file, one to a
	// directory (which would count train twice), one dangling.
	for name, target := range map[string]string{"link-file": "a", "link-dir": "train", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Count(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if want := (engines.UFSUsage{Bytes: 1110, Files: 4}); got != want {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
}

// TestCountReadsLargeDirectoriesInBatches: a directory of more entries
// than one batch is counted whole.
func TestCountReadsLargeDirectoriesInBatches(t *testing.T) {
	files := map[string]int{}
	for i := range readBatch*2 + 7 {
		files[fmt.Sprintf("many/f%05d", i)] = 1
	}
	got, err := Count(context.Background(), tree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	if want := (engines.UFSUsage{Bytes: int64(len(files)), Files: int64(len(files))}); got != want {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
}

func TestCountFails(t *testing.T) {
	root := tree(t, map[string]int{"f": 1})
	if _, err := Count(context.Background(), filepath.Join(root, "missing")); err == nil {
		t.Error("a missing root counted")
	}
	if _, err := Count(context.Background(), filepath.Join(root, "f")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file as root: error %v, want one saying it is not a directory", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Count(ctx, root); err == nil {
		t.Error("a cancelled count returned a result")
	}
}

// TestCountRefusesAnUnreadableDirectory: a directory the walk may not read
// fails the count, naming it, instead of leaving its files out. Root reads
// every directory whatever its mode, so as root the count runs in a child
// process as nobody.
func TestCountRefusesAnUnreadableDirectory(t *testing.T) {
	if dir := os.Getenv("UFSMETA_COUNT_AS_NOBODY"); dir != "" {
		_, err := Count(context.Background(), dir)
		fmt.Println("count error:", err)
		return
	}
	root, err := os.MkdirTemp("", "ufsmeta")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	locked := filepath.Join(root, "locked")
	for _, d := range []string{root, filepath.Join(root, "open"), locked} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(root, "open", "f"), filepath.Join(locked, "f")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	var out string
	if os.Geteuid() != 0 {
		_, err := Count(context.Background(), root)
		out = fmt.Sprint("count error: ", err)
	} else {
		// The test binary's own directory is root's only: nobody runs a copy.
		bin, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		self := filepath.Join(root, "count.test")
		if err := os.WriteFile(self, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(self, "-test.run=^TestCountRefusesAnUnreadableDirectory$")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "UFSMETA_COUNT_AS_NOBODY="+root)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("counting as nobody: %v\n%s", err, b)
		}
		out = string(b)
	}
	if !strings.Contains(out, "count error: ") || !strings.Contains(out, locked) || strings.Contains(out, "count error: <nil>") {
		t.Errorf("an unreadable directory: %s; want an error naming %s", out, locked)
	}
}

package warmup_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sluice-data/sluice/engines/thin/warmup"
)

// tree writes a Dataset under a temp dir: files of known sizes, a
// symbolic link and a named pipe (neither is read: opening the pipe would
// block), and a link pointing outside the Dataset.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, size := range map[string]int{"train/a.bin": 3<<20 + 17, "train/sub/b.bin": 1000, "val/c d.bin": 64 << 10, "top.txt": 5, "empty": 0} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../val/c d.bin", filepath.Join(root, "train", "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "train", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "outside")); err != nil {
		t.Fatal(err)
	}
	return root
}

func run(t *testing.T, root string, metadata bool, paths ...string) (warmup.Summary, string, error) {
	t.Helper()
	var log bytes.Buffer
	s, err := warmup.Run(context.Background(), warmup.Options{Root: root, Paths: paths, Threads: 3, Metadata: metadata, Log: &log})
	return s, log.String(), err
}

// TestRunReadsEveryFileOnce: every regular file at or below the paths is
// read whole, once, though the paths overlap; links and pipes are counted
// as skipped, not read.
func TestRunReadsEveryFileOnce(t *testing.T) {
	root := tree(t)
	for _, metadata := range []bool{false, true} {
		for _, tc := range []struct {
			name                  string
			paths                 []string
			files, bytes, skipped int64
		}{
			{"whole Dataset", []string{"/"}, 5, 3<<20 + 17 + 1000 + 64<<10 + 5, 3},
			{"overlapping directories", []string{"/train/sub", "/train", "/train/"}, 2, 3<<20 + 17 + 1000, 2},
			{"a file and a directory", []string{"/top.txt", "/val"}, 2, 5 + 64<<10, 0},
			{"unclean paths", []string{"//val/./"}, 1, 64 << 10, 0},
		} {
			s, log, err := run(t, root, metadata, tc.paths...)
			if err != nil {
				t.Fatalf("%s (metadata %v): %v\n%s", tc.name, metadata, err, log)
			}
			want := warmup.Summary{Files: tc.files, Bytes: tc.bytes, Skipped: tc.skipped}
			if s != want {
				t.Errorf("%s (metadata %v): %+v, want %+v\n%s", tc.name, metadata, s, want, log)
			}
			if metadata != strings.Contains(log, "metadata: ") {
				t.Errorf("%s (metadata %v): the log %q", tc.name, metadata, log)
			}
		}
	}
	_, log, _ := run(t, root, true, "/val")
	if !strings.Contains(log, `metadata: 1 files of 65536 bytes below "/val" listed in`) ||
		!strings.Contains(log, `read 1 files, 65536 bytes, below "/val" in`) {
		t.Errorf("the log does not give the totals:\n%s", log)
	}
}

// TestRunStaysInTheDataset: a path that leaves the Dataset, through .. or
// a symbolic link, is refused before anything is read, as is a path that
// does not exist.
func TestRunStaysInTheDataset(t *testing.T) {
	root := tree(t)
	for _, tc := range []struct {
		path, want string
	}{
		{"/../etc", "no .. elements"},
		{"/train/../../etc", "no .. elements"},
		{"train", "starts with /"},
		{"/outside", "path escapes from parent"},
		{"/outside/passwd", "path escapes from parent"},
		{"/missing", "no such file or directory"},
		{"/a\x00b", "NUL"},
	} {
		s, _, err := run(t, root, false, "/train", tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "path ") {
			t.Errorf("path %q: %v, want an error naming the path and saying %q", tc.path, err, tc.want)
		}
		if s.Files != 0 {
			t.Errorf("path %q: %d files read before the refusal", tc.path, s.Files)
		}
	}
}

// TestRunRefusesItsLimits: threads outside 1..MaxThreads and no path.
func TestRunRefusesItsLimits(t *testing.T) {
	root := tree(t)
	for _, o := range []warmup.Options{
		{Root: root, Paths: []string{"/"}, Threads: 0},
		{Root: root, Paths: []string{"/"}, Threads: warmup.MaxThreads + 1},
		{Root: root, Threads: 1},
	} {
		if _, err := warmup.Run(context.Background(), o); err == nil {
			t.Errorf("%+v ran", o)
		}
	}
	if _, err := warmup.Run(context.Background(), warmup.Options{Root: filepath.Join(root, "nope"), Paths: []string{"/"}, Threads: 1}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing mount: %v", err)
	}
}

func TestTargets(t *testing.T) {
	got, err := warmup.Targets([]string{"/b/c", "/a", "/b", "/a/", "/ab"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/a", "/b", "/ab"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("targets %q, want %q (below another or repeated: left out; /ab is not below /a)", got, want)
	}
	if got, _ := warmup.Targets([]string{"/x", "/"}); len(got) != 1 || got[0] != "/" {
		t.Errorf("targets with / %q, want only /", got)
	}
}

package warmup_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines/thin/warmup"
)

func execute(args ...string) (string, error) {
	cmd := warmup.NewCommand()
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

// TestCommand: the command line the engine renders runs; paths must come
// after --, and flags are checked before anything is read.
func TestCommand(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "train"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "train", "a"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := execute("--root="+root, "--threads=2", "--timeout=1m", "--metadata", "--", "/train")
	if err != nil || !strings.Contains(out, `read 1 files, 3 bytes, below "/train"`) || !strings.Contains(out, "with 2 threads") {
		t.Fatalf("%v\n%s", err, out)
	}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no path":          {[]string{"--root=" + root, "--"}, "requires at least 1 arg"},
		"path before --":   {[]string{"--root=" + root, "/train"}, "the paths go after --"},
		"negative timeout": {[]string{"--root=" + root, "--timeout=-1s", "--", "/"}, "--timeout -1s"},
		"unknown flag":     {[]string{"--root=" + root, "--thread=2", "--", "/"}, "unknown flag: --thread"},
		"threads":          {[]string{"--root=" + root, "--threads=0", "--", "/"}, "threads is 0"},
	} {
		if _, err := execute(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

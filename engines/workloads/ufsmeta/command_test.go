package ufsmeta

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandWritesTheTerminationMessage runs `sluice ufs-count` as the
// metadata pod does: the result goes to the result file (the kubelet's
// termination message) and to standard output.
func TestCommandWritesTheTerminationMessage(t *testing.T) {
	root := tree(t, map[string]int{"a": 3, "b/c": 4})
	result := filepath.Join(t.TempDir(), "termination-log")
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--result-file=" + result, root})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	msg, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"bytes":7,"files":2}`; string(msg) != want || strings.TrimSpace(out.String()) != want {
		t.Errorf("result file %q, output %q; want %s", msg, out.String(), want)
	}
	// A count that fails writes no result: the pod's log tail becomes its
	// message, which the controller reports.
	failing := NewCommand()
	failing.SetOut(&out)
	failing.SetErr(&out)
	empty := filepath.Join(t.TempDir(), "termination-log")
	failing.SetArgs([]string{"--result-file=" + empty, filepath.Join(root, "missing")})
	if err := failing.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "counting") {
		t.Errorf("a missing directory: error %v", err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("a failed count wrote a result file: %v", err)
	}
}

package policycmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func fixtureFile(name, file string) string {
	return filepath.Join("..", "..", "policies", "testdata", "mutating", name, file)
}

func TestEvalPrintsMutatedPodOrPatch(t *testing.T) {
	out, _, err := run(t, "eval", "--pod", fixtureFile("serverful-affinity", "pod.yaml"), "--objects", fixtureFile("serverful-affinity", "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "fluid.io/datasets-in-use: imagenet") || !strings.Contains(out, "mountPropagation: HostToContainer") {
		t.Fatalf("mutated Pod:\n%s", out)
	}
	out, _, err = run(t, "eval", "--patch", "--pod", fixtureFile("serverful-affinity", "pod.yaml"), "--objects", fixtureFile("serverful-affinity", "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"path": "/spec/affinity"`) {
		t.Fatalf("patch:\n%s", out)
	}
}

func TestEvalDenialExitsOne(t *testing.T) {
	_, errOut, err := run(t, "eval", "--pod", fixtureFile("denied-not-bound", "pod.yaml"), "--objects", fixtureFile("denied-not-bound", "objects.yaml"))
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Fatalf("want exit status 1, got %v", err)
	}
	if !strings.Contains(errOut, "denied: ") || !strings.Contains(errOut, "rule dataset-not-bound") {
		t.Fatalf("stderr = %q", errOut)
	}
}

func TestTestCommandCountsAndFailsOnABrokenCase(t *testing.T) {
	out, _, err := run(t, "test")
	if err != nil {
		t.Fatalf("default policies: %v\n%s", err, out)
	}
	if !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("summary missing:\n%s", out)
	}
	// A platform team's directory with a case whose expectation is wrong.
	dir := t.TempDir()
	caseDir := filepath.Join(dir, "testdata", "wrong")
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pod, _ := os.ReadFile(fixtureFile("serverful-affinity", "pod.yaml"))
	objs, _ := os.ReadFile(fixtureFile("serverful-affinity", "objects.yaml"))
	for name, data := range map[string][]byte{"pod.yaml": pod, "objects.yaml": objs, "denied.txt": []byte("this is not denied\n")} {
		if err := os.WriteFile(filepath.Join(caseDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err = run(t, "test", dir)
	var exit *ExitError
	if !errors.As(err, &exit) || !strings.Contains(out, " passed, 1 failed") || !strings.Contains(out, "FAIL case "+dir) {
		t.Fatalf("want one failure, got %v:\n%s", err, out)
	}
}

func TestEvalValidatesObjects(t *testing.T) {
	dir := filepath.Join("..", "..", "policies", "testdata", "validating")
	out, _, err := run(t, "eval", "--object", filepath.Join(dir, "dataload-claims", "object.yaml"), "--objects", filepath.Join(dir, "dataload-claims", "objects.yaml"))
	if err != nil || !strings.Contains(out, "claims dataset team-a/imagenet for DataLoad nightly") || !strings.HasSuffix(out, "allowed\n") {
		t.Fatalf("err=%v out=%q", err, out)
	}
	_, errOut, err := run(t, "eval", "--object", filepath.Join(dir, "dataset-mounts-held", "object.yaml"),
		"--old", filepath.Join(dir, "dataset-mounts-held", "old.yaml"), "--objects", filepath.Join(dir, "dataset-mounts-held", "objects.yaml"))
	var exit *ExitError
	if !errors.As(err, &exit) || !strings.Contains(errOut, "rule dataset-mounts-held") {
		t.Fatalf("err=%v stderr=%q", err, errOut)
	}
	if _, _, err := run(t, "eval", "--pod", "p.yaml", "--object", "o.yaml"); err == nil {
		t.Fatal("--pod and --object together must be refused")
	}
}

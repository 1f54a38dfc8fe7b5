package juicefs_test

import (
	"os/exec"
	"testing"

	"github.com/sluice-data/sluice/engines/juicefs"
)

// TestFuseScriptRunsSetupThenMount runs FUSE's constant script with sh:
// each counted set-up command runs with its arguments whole, in order, a
// failing one ends the script before the mount command, and the mount
// command is exec'd with the remaining arguments.
func TestFuseScriptRunsSetupThenMount(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	run := func(args ...string) (string, error) {
		out, err := exec.Command(sh, append([]string{"-c", juicefs.FuseScript, "sh", t.TempDir() + "/not-mounted"}, args...)...).Output()
		return string(out), err
	}
	out, err := run("3", "printf", "[%s]", "a b; $(id) `id`", "2", "echo", "-n", "0", "printf", "<%s>", "x", "y z")
	if want := "[a b; $(id) `id`]<x><y z>"; err != nil || out != want {
		t.Errorf("output %q (%v), want %q", out, err, want)
	}
	out, err = run("1", "false", "0", "echo", "mounted")
	if err == nil || out != "" {
		t.Errorf("a failing set-up went on to the mount: output %q, error %v", out, err)
	}
	if out, err = run("0", "echo", "mounted"); err != nil || out != "mounted\n" {
		t.Errorf("no set-up: output %q (%v)", out, err)
	}
}

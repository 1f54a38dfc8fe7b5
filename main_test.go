package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines/thin/warmup"
	"github.com/sluice-data/sluice/internal/buildinfo"
)

func TestVersionCommand(t *testing.T) {
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"version"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "sluice "+buildinfo.Version()+" (go") {
		t.Fatalf("version output = %q", got)
	}
}

func TestUnknownCommandFails(t *testing.T) {
	cmd := newRootCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"no-such-command"})
	if err := cmd.Execute(); err == nil {
		t.Fatal("expected an error for an unknown subcommand")
	}
}

// TestPodCommandsAreSubcommands: the commands Sluice renders into pods
// (the rclone profile's FUSE program, a Thin DataLoad's warm-up) are
// subcommands of the one binary in Sluice's image.
func TestPodCommandsAreSubcommands(t *testing.T) {
	for _, name := range []string{"rclone-mount", warmup.Command} {
		cmd, _, err := newRootCommand().Find([]string{name})
		if err != nil || cmd.Name() != name {
			t.Errorf("sluice %s: %v (found %q)", name, err, cmd.Name())
		}
	}
}

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	version = "v1.2.3-test"
	t.Cleanup(func() { version = "" })
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"version"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "sluice v1.2.3-test (go") {
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

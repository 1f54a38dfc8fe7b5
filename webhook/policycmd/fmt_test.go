package policycmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFmtChecksAndFormats: --check lists an unformatted file and exits 1
// writing nothing; fmt rewrites it; then --check passes.
func TestFmtChecksAndFormats(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rules", "deny.rego")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	ugly := "package team.rules\nimport rego.v1\ndeny contains msg if {   input.x == 1\n msg := \"x\" }\n"
	if err := os.WriteFile(file, []byte(ugly), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "fmt", "--check", dir)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 || !strings.Contains(out, "not formatted: "+file) {
		t.Fatalf("--check of an unformatted file: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(file); string(got) != ugly {
		t.Fatal("--check wrote the file")
	}
	if out, _, err = run(t, "fmt", dir); err != nil || !strings.Contains(out, "formatted "+file) {
		t.Fatalf("fmt: %v\n%s", err, out)
	}
	if _, _, err = run(t, "fmt", "--check", dir); err != nil {
		t.Fatalf("--check after fmt: %v", err)
	}
}

// TestTheShippedPoliciesAreFormatted: the default policies and the
// examples are as OPA's formatter writes them.
func TestTheShippedPoliciesAreFormatted(t *testing.T) {
	if out, _, err := run(t, "fmt", "--check", filepath.Join("..", "..", "policies")); err != nil {
		t.Fatalf("%v\n%s(run: go run . policy fmt policies)", err, out)
	}
}

package main

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// staticBinary builds a tiny static Linux program to stand in for
// bin/sluice (building Sluice itself takes minutes).
func staticBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"sluice\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sluice")
	cmd := exec.Command("go", "build", "-o", out, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GO111MODULE=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a static binary: %v\n%s", err, b)
	}
	return out
}

func testOptions(t *testing.T) *Options {
	return &Options{
		Binary: staticBinary(t), CACerts: "/etc/ssl/certs/ca-certificates.crt",
		Output:     filepath.Join(t.TempDir(), "image.tar"),
		Repository: "ghcr.io/sluice-data/sluice", Version: "v0.9.0-rc.1", Revision: "0123456789abcdef",
		Source: "https://github.com/sluice-data/sluice", Arch: "amd64",
		Created: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
	}
}

// TestImageReadsBack builds an image and reads it back: entrypoint, user,
// labels, files, both as a docker archive and as an OCI layout.
func TestImageReadsBack(t *testing.T) {
	if _, err := os.Stat("/etc/ssl/certs/ca-certificates.crt"); err != nil {
		t.Fatalf("the CA bundle is missing (apt-get install ca-certificates): %v", err)
	}
	o := testOptions(t)
	if err := Build(o); err != nil {
		t.Fatal(err)
	}
	if err := Verify(o.Output, o); err != nil {
		t.Fatal(err)
	}
	img, err := tarball.ImageFromPath(o.Output, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Labels["org.opencontainers.image.version"]; got != "v0.9.0-rc.1" {
		t.Errorf("version label %q", got)
	}
	if got := cfg.Config.Labels["org.opencontainers.image.revision"]; got != "0123456789abcdef" {
		t.Errorf("revision label %q", got)
	}
	if got := cfg.Config.Labels["org.opencontainers.image.source"]; got != "https://github.com/sluice-data/sluice" {
		t.Errorf("source label %q", got)
	}
	if cfg.Config.User != "65532:65532" || strings.Join(cfg.Config.Entrypoint, " ") != "/sluice" {
		t.Errorf("user %q entrypoint %v", cfg.Config.User, cfg.Config.Entrypoint)
	}
	files, err := filesOf(img)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/sluice", "/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/etc/group", "/tmp", "/home/nonroot"} {
		if _, ok := files[p]; !ok {
			t.Errorf("the image has no %s", p)
		}
	}
	if h := files["/home/nonroot"]; h != nil && h.Uid != NonRoot {
		t.Errorf("/home/nonroot belongs to %d", h.Uid)
	}
	if len(files) > 12 {
		t.Errorf("the image has %d files; it should hold the binary, the CA bundle and the user database only", len(files))
	}
	// Both views of the archive are there.
	names := tarNames(t, o.Output)
	for _, n := range []string{"oci-layout", "index.json", "manifest.json"} {
		if !names[n] {
			t.Errorf("the archive has no %s", n)
		}
	}
}

// TestImageIsReproducible builds twice from the same inputs: same bytes.
func TestImageIsReproducible(t *testing.T) {
	o := testOptions(t)
	if err := Build(o); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(o.Output)
	if err != nil {
		t.Fatal(err)
	}
	if err := Build(o); err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(o.Output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("two builds of the same inputs differ")
	}
}

// TestBuildRefusesWhatScratchCannotRun checks the refusals: a dynamically
// linked binary, a missing CA bundle, an invalid tag.
func TestBuildRefusesWhatScratchCannotRun(t *testing.T) {
	o := testOptions(t)
	o.Binary = "/bin/sh" // dynamically linked on Debian
	if err := Build(o); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Errorf("a dynamic binary: %v", err)
	}
	o = testOptions(t)
	o.CACerts = filepath.Join(t.TempDir(), "none.crt")
	if err := Build(o); err == nil || !strings.Contains(err.Error(), "ca-certificates") {
		t.Errorf("no CA bundle: %v", err)
	}
	o = testOptions(t)
	o.Version = "not a tag"
	if err := Build(o); err == nil {
		t.Errorf("an invalid tag was accepted")
	}
}

func tarNames(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err != nil {
			return out
		}
		out[h.Name] = true
	}
}

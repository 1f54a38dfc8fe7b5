package main

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Verify reads the tarball back, both as `docker load` does (manifest.json)
// and as an OCI image layout (index.json), and checks the entrypoint, the
// user, the labels, the name and the files.
func Verify(path string, o *Options) error {
	ref, err := o.Ref()
	if err != nil {
		return err
	}
	docker, err := tarball.ImageFromPath(path, &ref)
	if err != nil {
		return fmt.Errorf("reading %s as a docker archive: %w", path, err)
	}
	dir, err := os.MkdirTemp("", "imagebuild-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	oci, err := ociImage(path, dir)
	if err != nil {
		return fmt.Errorf("reading %s as an OCI layout: %w", path, err)
	}
	// The docker view rebuilds a manifest of its own: compare what both
	// point at, the config and the layers.
	c1, err := docker.ConfigName()
	if err != nil {
		return err
	}
	c2, err := oci.ConfigName()
	if err != nil {
		return err
	}
	l1, err := layerDigests(docker)
	if err != nil {
		return err
	}
	l2, err := layerDigests(oci)
	if err != nil {
		return err
	}
	if c1 != c2 || !slices.Equal(l1, l2) {
		return fmt.Errorf("manifest.json and index.json describe different images: config %s, %s; layers %v, %v", c1, c2, l1, l2)
	}
	cfg, err := oci.ConfigFile()
	if err != nil {
		return err
	}
	c := cfg.Config
	if !slices.Equal(c.Entrypoint, []string{Entrypoint}) || len(c.Cmd) != 0 {
		return fmt.Errorf("entrypoint %v, cmd %v; want [%s] and none", c.Entrypoint, c.Cmd, Entrypoint)
	}
	if want := fmt.Sprintf("%d:%d", NonRoot, NonRoot); c.User != want {
		return fmt.Errorf("user %q, want %q", c.User, want)
	}
	for k, v := range o.Labels() {
		if c.Labels[k] != v {
			return fmt.Errorf("label %s=%q, want %q", k, c.Labels[k], v)
		}
	}
	if cfg.OS != "linux" || cfg.Architecture != o.Arch {
		return fmt.Errorf("platform %s/%s, want linux/%s", cfg.OS, cfg.Architecture, o.Arch)
	}
	files, err := filesOf(oci)
	if err != nil {
		return err
	}
	for p, mode := range map[string]int64{Entrypoint: 0o755, caPath: 0o644, "/etc/passwd": 0o644} {
		h, ok := files[p]
		if !ok {
			return fmt.Errorf("the image has no %s", p)
		}
		if h.Mode&0o7777 != mode || h.Uid != 0 {
			return fmt.Errorf("%s: mode %o uid %d, want %o and root", p, h.Mode, h.Uid, mode)
		}
	}
	return nil
}

// ociImage extracts the OCI layout of a tarball into dir and returns its
// one image (read lazily from dir).
func ociImage(path, dir string) (v1.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, dir+string(filepath.Separator)) {
			return nil, fmt.Errorf("tar entry %q escapes the directory", h.Name)
		}
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return nil, err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return nil, err
		}
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(m.Manifests) != 1 {
		return nil, fmt.Errorf("index.json lists %d manifests, want 1", len(m.Manifests))
	}
	return idx.Image(m.Manifests[0].Digest)
}

// filesOf returns the headers of the image's flattened filesystem, by
// absolute path.
func filesOf(img v1.Image) (map[string]*tar.Header, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	out := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out["/"+strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")] = h
	}
}

func layerDigests(img v1.Image) ([]v1.Hash, error) {
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	out := make([]v1.Hash, 0, len(layers))
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

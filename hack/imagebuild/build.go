package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// NonRoot is the image's default user and group (distroless's nonroot).
const NonRoot = 65532

// Entrypoint is where the binary lives in the image.
const Entrypoint = "/sluice"

// caPath is where Go (and most TLS stacks) look for the system roots.
const caPath = "/etc/ssl/certs/ca-certificates.crt"

// Options describe one image.
type Options struct {
	Binary     string    // a static Linux executable: bin/sluice built with CGO_ENABLED=0
	CACerts    string    // a PEM bundle, e.g. /etc/ssl/certs/ca-certificates.crt
	Output     string    // the tar file to write
	Repository string    // e.g. ghcr.io/sluice-data/sluice
	Version    string    // the image tag and org.opencontainers.image.version
	Revision   string    // the VCS revision (org.opencontainers.image.revision)
	Source     string    // the source repository URL (org.opencontainers.image.source)
	Arch       string    // GOARCH of the binary (amd64, arm64, …)
	Created    time.Time // image and file times: the commit's time, for reproducible builds
}

// Labels returns the image's OCI labels.
func (o *Options) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "sluice",
		"org.opencontainers.image.description": "Sluice: Kubernetes-native data caching (controller, webhook, CSI plugin in one binary)",
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
}

// Ref is the image's name and tag.
func (o *Options) Ref() (name.Tag, error) {
	return name.NewTag(o.Repository+":"+o.Version, name.StrictValidation)
}

// Build writes the image tarball.
func Build(o *Options) error {
	ref, err := o.Ref()
	if err != nil {
		return fmt.Errorf("image name %s:%s: %w", o.Repository, o.Version, err)
	}
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return err
	}
	if err := checkStatic(o.Binary); err != nil {
		return err
	}
	ca, err := os.ReadFile(o.CACerts)
	if err != nil {
		return fmt.Errorf("the CA bundle: %w (on Debian: apt-get install ca-certificates)", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return fmt.Errorf("%s holds no PEM certificate", o.CACerts)
	}
	img, err := image(o, bin, ca)
	if err != nil {
		return err
	}
	return writeArchive(o.Output, ref, img)
}

// image assembles the image: scratch, the base layer, the binary.
func image(o *Options, bin, ca []byte) (v1.Image, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", NonRoot, NonRoot)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", NonRoot)
	base, err := layer(o.Created, []file{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: strings.TrimPrefix(caPath, "/"), mode: 0o644, data: ca},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, dir: true, uid: NonRoot},
		{name: "tmp/", mode: 0o1777, dir: true},
	})
	if err != nil {
		return nil, err
	}
	app, err := layer(o.Created, []file{{name: strings.TrimPrefix(Entrypoint, "/"), mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: o.Created}, CreatedBy: "imagebuild: CA certificates, passwd, group, /tmp", Comment: "base"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: o.Created}, CreatedBy: "imagebuild: " + Entrypoint}},
	)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS, cfg.Created = o.Arch, "linux", v1.Time{Time: o.Created}
	cfg.Config = v1.Config{
		Entrypoint: []string{Entrypoint},
		User:       fmt.Sprintf("%d:%d", NonRoot, NonRoot),
		WorkingDir: "/",
		Env:        []string{"PATH=/", "SSL_CERT_FILE=" + caPath, "HOME=/home/nonroot"},
		Labels:     o.Labels(),
	}
	return mutate.ConfigFile(img, cfg)
}

type file struct {
	name string
	mode int64
	data []byte
	dir  bool
	uid  int
}

// layer returns a gzipped OCI layer of files, with fixed times and owners
// so that the same inputs give the same digest.
func layer(mtime time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, ModTime: mtime, Uid: f.uid, Gid: f.uid, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// checkStatic refuses a dynamically linked binary: scratch has no libc.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not a Linux executable: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0 (the image has no libc)", path)
		}
	}
	return nil
}

// writeArchive writes img as an OCI image layout plus a docker-save
// manifest.json, in one tar with fixed times.
func writeArchive(out string, ref name.Tag, img v1.Image) error {
	dir, err := os.MkdirTemp("", "imagebuild-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	err = p.AppendImage(img, layout.WithAnnotations(map[string]string{
		// The OCI name of the tag, and the full name containerd and
		// Docker (25+) give the image on import.
		"org.opencontainers.image.ref.name": ref.TagStr(),
		"io.containerd.image.name":          ref.Name(),
	}))
	if err != nil {
		return err
	}
	cfgName, err := img.ConfigName()
	if err != nil {
		return err
	}
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	entry := struct {
		Config   string
		RepoTags []string
		Layers   []string
	}{Config: blobPath(cfgName), RepoTags: []string{ref.Name()}}
	for _, l := range layers {
		d, err := l.Digest()
		if err != nil {
			return err
		}
		entry.Layers = append(entry.Layers, blobPath(d))
	}
	manifest, err := json.Marshal([]any{entry})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		return err
	}
	return tarDir(dir, out)
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// tarDir writes dir's files into out, sorted, with zero times.
func tarDir(dir, out string) error {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if st.IsDir() {
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
		} else {
			h.Typeflag, h.Size = tar.TypeReg, st.Size()
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if !st.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if _, err := tw.Write(data); err != nil {
				return err
			}
		}
	}
	if err := errors.Join(tw.Close(), f.Close()); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

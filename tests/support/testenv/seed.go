package testenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// A seed is the etcd data directory of a control plane that has Sluice's
// CRDs installed, built once per CRD set and pair of binaries and kept in
// the user's cache. A control plane started from a copy of it serves the
// CRDs from the start: installing them costs the API server about 4.5 CPU
// seconds on each start (creating fourteen large schemas, their status
// updates and managed fields, measured on the two-core machine), against
// under one second for reading them back at start. Every test package
// starts at least one control plane, so this is most of what starting one
// costs. The copy is taken of a stopped etcd, so it is consistent; etcd
// starts from it as a restarted single member does (same member, new
// listening ports).

// seedVersion changes when what a seed holds or how it is built changes,
// so that older seeds are not used.
const seedVersion = "1"

// seedServed is the file in a seed naming what its CRDs serve.
const seedServed = "served.json"

// noSeedEnv turns seeds off: every start installs the CRDs itself.
const noSeedEnv = "SLUICE_TESTENV_NO_SEED"

// seedsDir holds the seeds: $SLUICE_TESTENV_SEEDS, else the user's cache.
func seedsDir() (string, error) {
	if dir := os.Getenv("SLUICE_TESTENV_SEEDS"); dir != "" {
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "sluice", "testenv-seeds"), nil
}

// crdDir is where the CRDs a control plane starts with are read from.
func crdDir() string { return filepath.Join(RepoRoot(), "config", "crd", "bases") }

// seedKey names the seed of the CRD files in crds and the binaries in
// bins: their contents (the binaries by size and modification time, which
// a rebuild changes).
func seedKey(crds, bins string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "seed %s\n", seedVersion)
	files, err := filepath.Glob(filepath.Join(crds, "*.yaml"))
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("no CRDs in %s", crds)
	}
	slices.Sort(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "crd %s %d\n", filepath.Base(f), len(data))
		h.Write(data)
	}
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		st, err := os.Stat(filepath.Join(bins, bin))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "bin %s %d %d\n", bin, st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// servedCRD is what a seed records of each CRD: enough for
// envtest.WaitForCRDs.
type servedCRD struct {
	Group    string   `json:"group"`
	Plural   string   `json:"plural"`
	Versions []string `json:"versions"`
}

// copyCurrentSeed copies the current seed's etcd data directory to data,
// building the seed first when there is none, and returns the CRDs it
// serves. Copies hold a shared lock on the seeds, and building a seed
// (with pruning the older ones) an exclusive one: one process builds while
// the others wait, and no seed is pruned while another process, testing
// another checkout, copies it.
func copyCurrentSeed(data string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	root, err := seedsDir()
	if err != nil {
		return nil, err
	}
	key, err := seedKey(crdDir(), BinDir())
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	dir, lockPath := filepath.Join(root, key), filepath.Join(root, ".lock")
	unlock, err := lock(lockPath, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	crds, err := readServed(dir)
	if err == nil {
		err = copySeed(dir, data)
		unlock()
		return crds, err
	}
	unlock()
	if unlock, err = lock(lockPath, syscall.LOCK_EX); err != nil {
		return nil, err
	}
	defer unlock()
	if crds, err = readServed(dir); err != nil { // else built while we waited
		if err := buildSeed(root, dir); err != nil {
			return nil, fmt.Errorf("building the seed %s: %w", dir, err)
		}
		pruneSeeds(root, key)
		if crds, err = readServed(dir); err != nil {
			return nil, err
		}
	}
	return crds, copySeed(dir, data)
}

// buildSeed starts a control plane on a new etcd data directory, installs
// the CRDs, stops it, and moves the directory to dir with the list of
// what the CRDs serve.
func buildSeed(root, dir string) error {
	tmp, err := os.MkdirTemp(root, ".building-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "etcd")
	e := &envtest.Environment{
		BinaryAssetsDirectory: BinDir(),
		CRDDirectoryPaths:     []string{crdDir()},
		ErrorIfCRDPathMissing: true,
	}
	e.ControlPlane.Etcd = &envtest.Etcd{DataDir: data}
	if _, err := e.Start(); err != nil {
		return err
	}
	var served []servedCRD
	for _, crd := range e.CRDs {
		s := servedCRD{Group: crd.Spec.Group, Plural: crd.Spec.Names.Plural}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				s.Versions = append(s.Versions, v.Name)
			}
		}
		served = append(served, s)
	}
	if err := e.Stop(); err != nil {
		return err
	}
	raw, err := json.Marshal(served)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, seedServed), raw, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// readServed reads a seed's list of what its CRDs serve; an error means
// there is no complete seed in dir.
func readServed(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	raw, err := os.ReadFile(filepath.Join(dir, seedServed))
	if err != nil {
		return nil, err
	}
	var served []servedCRD
	if err := json.Unmarshal(raw, &served); err != nil {
		return nil, err
	}
	if len(served) == 0 {
		return nil, errors.New("the seed serves no CRD")
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, len(served))
	for i, s := range served {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		crd.Spec.Group, crd.Spec.Names.Plural = s.Group, s.Plural
		for _, v := range s.Versions {
			crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true})
		}
		crds[i] = crd
	}
	return crds, nil
}

// pruneSeeds removes every seed but key's (older CRDs or binaries).
func pruneSeeds(root, key string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && e.Name() != key && !strings.HasPrefix(e.Name(), ".") {
			_ = os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// lock takes a lock on path (how: syscall.LOCK_SH or LOCK_EX), waiting
// for it.
func lock(path string, how int) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// copySeed copies the seed's etcd data directory to dst, leaving holes
// where the source has zeros (etcd preallocates its write-ahead log).
func copySeed(seedDir, dst string) error {
	src := filepath.Join(seedDir, "etcd")
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		}
		return copySparse(path, to, info.Mode().Perm())
	})
}

// copySparse copies a regular file, seeking over blocks of zeros.
func copySparse(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	buf, zeros := make([]byte, 64<<10), make([]byte, 64<<10)
	var size int64
	for {
		n, rerr := io.ReadFull(in, buf)
		if n > 0 {
			if bytes.Equal(buf[:n], zeros[:n]) {
				_, err = out.Seek(int64(n), io.SeekCurrent)
			} else {
				_, err = out.Write(buf[:n])
			}
			if err != nil {
				out.Close()
				return err
			}
			size += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			out.Close()
			return rerr
		}
	}
	if err := out.Truncate(size); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// seedEtcd points e's etcd at a copy of the current seed in dir and
// returns the CRDs the seed serves, for the caller to wait for. With
// $SLUICE_TESTENV_NO_SEED set, or when there is no seed to be had (said
// on stderr), it has e install the CRDs itself and returns nil.
func seedEtcd(e *envtest.Environment, dir string) []*apiextensionsv1.CustomResourceDefinition {
	if os.Getenv(noSeedEnv) == "" {
		data := filepath.Join(dir, "etcd")
		crds, err := copyCurrentSeed(data)
		if err == nil {
			e.ControlPlane.Etcd = &envtest.Etcd{DataDir: data}
			return crds
		}
		_ = os.RemoveAll(data)
		fmt.Fprintf(os.Stderr, "testenv: no seed, installing the CRDs on this start: %v\n", err)
	}
	e.CRDDirectoryPaths, e.ErrorIfCRDPathMissing = []string{crdDir()}, true
	return nil
}

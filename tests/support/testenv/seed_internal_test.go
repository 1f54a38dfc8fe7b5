package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A seed is found again only for the same CRDs and binaries: a changed
// CRD, a CRD more and a rebuilt binary each name another.
func TestSeedKeyFollowsTheCRDsAndBinaries(t *testing.T) {
	crds, bins := t.TempDir(), t.TempDir()
	write := func(dir, name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(crds, "a.yaml", "kind: CustomResourceDefinition\n")
	write(bins, "etcd", "etcd")
	write(bins, "kube-apiserver", "apiserver")
	key := func() string {
		t.Helper()
		k, err := seedKey(crds, bins)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	seen := map[string]string{}
	step := func(what string) {
		t.Helper()
		k := key()
		if k != key() {
			t.Fatalf("%s: the key is not stable", what)
		}
		if before, ok := seen[k]; ok {
			t.Errorf("%s: same key as %s", what, before)
		}
		seen[k] = what
	}
	step("first")
	write(crds, "a.yaml", "kind: CustomResourceDefinition\nspec: {}\n")
	step("a CRD changed")
	write(crds, "b.yaml", "kind: CustomResourceDefinition\n")
	step("a CRD added")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(bins, "kube-apiserver"), later, later); err != nil {
		t.Fatal(err)
	}
	step("kube-apiserver rebuilt")
	write(bins, "etcd", "etcd, rebuilt")
	step("etcd rebuilt")
	if _, err := seedKey(t.TempDir(), bins); err == nil {
		t.Error("no error for a directory without CRDs")
	}
}

// copySparse copies every byte: data, blocks of zeros between data (left
// as holes) and zeros at the end.
func TestCopySparseKeepsEveryByte(t *testing.T) {
	dir := t.TempDir()
	var content []byte
	content = append(content, bytes.Repeat([]byte{7}, 1000)...)
	content = append(content, make([]byte, 200<<10)...)
	content = append(content, bytes.Repeat([]byte("etcd"), 30000)...)
	content = append(content, make([]byte, 300<<10+5)...)
	from, to := filepath.Join(dir, "from"), filepath.Join(dir, "to")
	if err := os.WriteFile(from, content, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := copySparse(from, to, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(to)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, content) {
		t.Errorf("the copy differs: %d bytes, want %d", len(got), len(content))
	}
}

// A seed being copied (shared lock held) is not pruned: the exclusive lock
// that building and pruning take waits for the copy.
func TestBuildingWaitsForCopies(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	unlockCopy, err := lock(path, syscall.LOCK_SH)
	if err != nil {
		t.Fatal(err)
	}
	unlockOther, err := lock(path, syscall.LOCK_SH) // copies do not wait for each other
	if err != nil {
		t.Fatal(err)
	}
	unlockOther()
	built := make(chan struct{})
	go func() {
		unlock, err := lock(path, syscall.LOCK_EX)
		if err != nil {
			t.Error(err)
		}
		close(built)
		unlock()
	}()
	select {
	case <-built:
		t.Fatal("the exclusive lock was taken while a copy held the shared one")
	case <-time.After(200 * time.Millisecond):
	}
	unlockCopy()
	select {
	case <-built:
	case <-time.After(10 * time.Second):
		t.Fatal("the exclusive lock was not taken after the copy ended")
	}
}

// Pruning keeps the current seed and what is being built (dot names).
func TestPruneKeepsTheCurrentSeed(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"current", "older", ".building-1"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pruneSeeds(root, "current")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != ".building-1 current" {
		t.Errorf("left %q, want .building-1 and current", left)
	}
}

package certs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// dataLink is the symlink to the directory holding the current files, as
// in a Secret volume written by the kubelet.
const dataLink = "..data"

// WriteDir replaces files in dir all at once, the way the kubelet updates
// a Secret volume: the files go to a new hidden directory, the symlink
// ..data is switched to it with one rename, and each name in dir is a
// symlink through ..data, so every file opened after the rename is new.
// The previous directory is removed last: that is the event
// controller-runtime's certwatcher re-reads on (a read that straddled the
// rename found a key not matching its certificate and kept the old pair).
func WriteDir(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	next, err := os.MkdirTemp(dir, "..files-")
	if err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(next, name), data, 0o600); err != nil {
			return errors.Join(err, os.RemoveAll(next))
		}
	}
	previous, _ := os.Readlink(filepath.Join(dir, dataLink))
	tmp := filepath.Join(dir, dataLink+"_tmp")
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Symlink(filepath.Base(next), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, dataLink)); err != nil {
		return fmt.Errorf("switching %s to the new files: %w", dataLink, err)
	}
	for name := range files {
		if err := linkThroughData(dir, name); err != nil {
			return err
		}
	}
	if previous != "" && previous != filepath.Base(next) {
		return os.RemoveAll(filepath.Join(dir, previous))
	}
	return nil
}

// linkThroughData makes dir/name a symlink to ..data/name unless it is one.
func linkThroughData(dir, name string) error {
	link, want := filepath.Join(dir, name), filepath.Join(dataLink, name)
	if got, err := os.Readlink(link); err == nil && got == want {
		return nil
	}
	tmp := link + "_tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Symlink(want, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, link)
}

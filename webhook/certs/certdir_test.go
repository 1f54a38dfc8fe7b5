package certs

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteDir lays the files out as the kubelet does a Secret volume, and a
// second write replaces them all and leaves no trace of the first.
func TestWriteDirReplacesAllFilesAtOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	for _, content := range []string{"first", "second"} {
		if err := WriteDir(dir, map[string][]byte{CertFile: []byte(content + " crt"), KeyFile: []byte(content + " key")}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{CertFile, KeyFile} {
			target, err := os.Readlink(filepath.Join(dir, name))
			if err != nil || target != filepath.Join(dataLink, name) {
				t.Errorf("%s links to %q (%v), want through %s", name, target, err, dataLink)
			}
		}
		crt, err := os.ReadFile(filepath.Join(dir, CertFile))
		if err != nil || string(crt) != content+" crt" {
			t.Errorf("after writing %q: tls.crt is %q (%v)", content, crt, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		// ..data, one directory of files, and the two links.
		if len(entries) != 4 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("after writing %q the directory holds %v", content, names)
		}
	}
}

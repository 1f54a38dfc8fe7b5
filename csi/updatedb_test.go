package csi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPruneUpdatedb(t *testing.T) {
	fsTypes, paths := []string{"fuse.juicefs", "fuse.alluxio-fuse"}, []string{"/runtime-mnt"}
	for _, tt := range []struct {
		name, in string // test name, updatedb.conf before
		want     string // updatedb.conf after; "" for unchanged
	}{
		{"adds the missing values to existing lines, keeping the rest",
			"# a comment\nPRUNE_BIND_MOUNTS=\"yes\"\nPRUNEFS = \"NFS nfs fuse.juicefs\"\nPRUNENAMES=\".git\"\nPRUNEPATHS=\"/tmp /var/spool\"\n",
			"# a comment\nPRUNE_BIND_MOUNTS=\"yes\"\nPRUNEFS = \"NFS nfs fuse.juicefs fuse.alluxio-fuse\"\nPRUNENAMES=\".git\"\nPRUNEPATHS = \"/tmp /var/spool /runtime-mnt\"\n"},
		{"appends the lines a file lacks, before its final newline",
			"PRUNE_BIND_MOUNTS=\"yes\"\n",
			"PRUNE_BIND_MOUNTS=\"yes\"\nPRUNEFS = \"fuse.juicefs fuse.alluxio-fuse\"\nPRUNEPATHS = \"/runtime-mnt\"\n"},
		{"a file listing everything is not written",
			"PRUNEFS=\"fuse.alluxio-fuse fuse.juicefs\"\nPRUNEPATHS=\"/runtime-mnt /tmp\"\n", ""},
		{"a commented key is not the key",
			"# PRUNEFS=\"x\"\nPRUNEFS=\"\"\nPRUNEPATHS=\"/runtime-mnt\"",
			"# PRUNEFS=\"x\"\nPRUNEFS = \"fuse.juicefs fuse.alluxio-fuse\"\nPRUNEPATHS=\"/runtime-mnt\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "updatedb.conf")
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			changed, err := PruneUpdatedb(path, fsTypes, paths)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.in
			}
			got, _ := os.ReadFile(path)
			if string(got) != want || changed != (tt.want != "") {
				t.Fatalf("changed %v, updatedb.conf:\n%s\nwant:\n%s", changed, got, want)
			}
			again, err := PruneUpdatedb(path, fsTypes, paths)
			if err != nil || again {
				t.Fatalf("a second run changed the file (%v) or failed: %v", again, err)
			}
			if after, _ := os.ReadFile(path); string(after) != want {
				t.Fatalf("a second run rewrote the file:\n%s", after)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
				t.Fatalf("mode %v, want 0644 kept", fi.Mode().Perm())
			}
		})
	}

	t.Run("an unreadable key line leaves the file alone", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "updatedb.conf")
		in := "PRUNEFS=$(cat /x)\n"
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := PruneUpdatedb(path, fsTypes, paths); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Fatalf("err = %v, want line 1 named", err)
		}
		if got, _ := os.ReadFile(path); string(got) != in {
			t.Fatalf("file changed: %q", got)
		}
	})
	t.Run("a node without updatedb.conf keeps none", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "updatedb.conf")
		if changed, err := PruneUpdatedb(path, fsTypes, paths); err != nil || changed {
			t.Fatalf("changed %v, err %v", changed, err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("updatedb.conf was created: %v", err)
		}
	})
}

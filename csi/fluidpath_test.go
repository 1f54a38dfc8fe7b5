package csi

import "testing"

// TestCheckFluidPath (audit L10): only a clean absolute path below the FUSE
// root is a dataset's FUSE mount point.
func TestCheckFluidPath(t *testing.T) {
	for p, ok := range map[string]bool{
		"/runtime-mnt/juicefs/team-a/imagenet/juicefs-fuse": true,
		"/runtime-mnt/thin/team-a/d/thin-fuse":              true,
		"/runtime-mnt":                                      false,
		"/runtime-mntx/juicefs/a/b":                         false,
		"/runtime-mnt/../etc":                               false,
		"/runtime-mnt/juicefs/../../etc":                    false,
		"/runtime-mnt/juicefs/./a":                          false,
		"runtime-mnt/juicefs/a":                             false,
		"/etc":                                              false,
		"/":                                                 false,
	} {
		if err := checkFluidPath(DefaultFuseRoot, p); (err == nil) != ok {
			t.Errorf("checkFluidPath(%q) = %v, want ok %v", p, err, ok)
		}
	}
}

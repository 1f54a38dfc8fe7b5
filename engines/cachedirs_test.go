package engines_test

import (
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines"
)

func TestCleanCachePath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want string // the clean path, or the error's text
		ok   bool
	}{
		{"/mnt/cache", "/mnt/cache", true},
		{"/", "/", true},
		{"/etc", "/etc", true},
		{"/mnt//cache/./disk/", "/mnt/cache/disk", true},
		{"/mnt/$(id) 'x' \"y\"", "/mnt/$(id) 'x' \"y\"", true},
		{"/mnt/.sluicer/x", "/mnt/.sluicer/x", true},
		{"mnt/cache", `"mnt/cache" is not an absolute path`, false},
		{"", `"" is not an absolute path`, false},
		{"/mnt/../etc", `has a ".." segment`, false},
		{"/mnt/cache/..", `has a ".." segment`, false},
		{"/mnt/.sluice", "has a .sluice segment", false},
		{"/mnt/.sluice/team/other", "has a .sluice segment", false},
		{"/mnt/cache\n/etc", "control character", false},
	} {
		got, err := engines.CleanCachePath("spec.tieredstore.levels[0].path", tc.path)
		switch {
		case tc.ok && (err != nil || got != tc.want):
			t.Errorf("CleanCachePath(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "spec.tieredstore.levels[0].path: ")):
			t.Errorf("CleanCachePath(%q) = %q, %v; want an error naming the field and saying %q", tc.path, got, err, tc.want)
		}
	}
}

func TestHostCacheDirIsOwnedByExactlyItsRuntime(t *testing.T) {
	for _, p := range []string{"/", "/etc", "/var", "/mnt/cache", "/dev/shm"} {
		dir := engines.HostCacheDir(p, "team-a", "data")
		if !strings.HasPrefix(dir, strings.TrimSuffix(p, "/")+"/.sluice/team-a/data") {
			t.Errorf("HostCacheDir(%q) = %q", p, dir)
		}
		if got, ok := engines.OwnedCacheDir(dir, "team-a", "data"); !ok || got != p {
			t.Errorf("OwnedCacheDir(%q, team-a, data) = %q, %v; want %q", dir, got, ok, p)
		}
		for _, other := range [][2]string{{"team-a", "other"}, {"team-b", "data"}, {"team", "a-data"}} {
			if _, ok := engines.OwnedCacheDir(dir, other[0], other[1]); ok {
				t.Errorf("%s is owned by runtime %s/%s too", dir, other[0], other[1])
			}
		}
	}
	for _, dir := range []string{
		"/mnt/cache",                             // a cache path itself
		"/mnt/cache/team-a/data",                 // Fluid's layout: not provably Sluice's
		"/.sluice/team-a",                        // the namespace's directory
		"/mnt/.sluice/team-a/data/x",             // inside the directory
		"/mnt/.sluice/team-a/data/",              // not clean
		"/mnt/../.sluice/team-a/data",            // not clean
		"/a/.sluice/x/.sluice/team-a/data",       // a cache path below another runtime's directory
		"mnt/.sluice/team-a/data",                // relative
		"//.sluice/team-a/data",                  // not clean
		"/mnt/.sluice/team-a/data\n/.sluice/t/d", // a line break
		"",
	} {
		if p, ok := engines.OwnedCacheDir(dir, "team-a", "data"); ok {
			t.Errorf("OwnedCacheDir(%q) = %q: a directory the runtime does not own", dir, p)
		}
	}
	for _, bad := range [][2]string{{"", "data"}, {"team-a", ""}, {"..", "data"}, {"team-a", ".."}, {"a/b", "c"}} {
		if _, ok := engines.OwnedCacheDir("/mnt/.sluice/"+bad[0]+"/"+bad[1], bad[0], bad[1]); ok {
			t.Errorf("OwnedCacheDir accepts runtime %q/%q", bad[0], bad[1])
		}
	}
}

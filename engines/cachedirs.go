package engines

import (
	"path"
	"strings"
)

// Host cache directories. A hostPath cache directory is a tieredstore path
// (or a cache directory an engine's options name) as the engine's
// containers see it; on the node it is backed by a directory of the
// runtime's own below it, HostCacheDir: <path>/.sluice/<namespace>/<name>.
// That directory is what a deleted runtime's cache cleanup removes
// (engines/workloads/cachecleanup), and only that: two runtimes sharing a
// tieredstore path, or a path such as / or /var, never share or expose a
// directory of the node's. Fluid writes to <path>/<namespace>/<name>,
// which for path / and a runtime lib in namespace var is /var/lib; the
// .sluice segment, which CleanCachePath keeps out of cache paths, makes
// the runtime's directory unmistakable.

// CacheDirMarker is the directory below each host cache path that holds
// the runtimes' own directories, <namespace>/<name>.
const CacheDirMarker = ".sluice"

// HostCacheDir is the node directory behind the cache path p (as
// CleanCachePath returns it) of the runtime namespace/name.
func HostCacheDir(p, namespace, name string) string {
	return path.Join(p, CacheDirMarker, namespace, name)
}

// CleanCachePath checks a cache path and returns it in clean form
// (path.Clean: no empty or "." segments, no trailing "/"). It refuses a
// path that is not absolute, holds a control character, has a ".."
// segment (whatever it would resolve to, it is not what the path says),
// or has a .sluice segment (it would lie inside some runtime's own
// directory, or hold the runtimes' directories of another path). field
// names the path in the error, e.g. spec.tieredstore.levels[0].path.
func CleanCachePath(field, p string) (string, error) {
	if err := CheckLine(field, p); err != nil {
		return "", err
	}
	switch {
	case !path.IsAbs(p):
		return "", Invalid("%s: %q is not an absolute path", field, p)
	case hasSegment(p, ".."):
		return "", Invalid("%s: %q has a \"..\" segment; give the directory itself", field, p)
	case hasSegment(p, CacheDirMarker):
		return "", Invalid("%s: %q has a %s segment, the directory Sluice keeps each runtime's cache in below a cache path; choose a path without it", field, p, CacheDirMarker)
	}
	return path.Clean(p), nil
}

func hasSegment(p, seg string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == seg {
			return true
		}
	}
	return false
}

// OwnedCacheDir reports whether dir is a host cache directory of the
// runtime namespace/name: HostCacheDir of a cache path that CleanCachePath
// returns as it is. It returns that cache path. Nothing else is ever
// removed as the runtime's cache.
func OwnedCacheDir(dir, namespace, name string) (cachePath string, ok bool) {
	if !validSegment(namespace) || !validSegment(name) {
		return "", false
	}
	p, ok := strings.CutSuffix(dir, "/"+CacheDirMarker+"/"+namespace+"/"+name)
	if !ok {
		return "", false
	}
	if p == "" {
		p = "/"
	}
	if clean, err := CleanCachePath("", p); err != nil || clean != p || HostCacheDir(p, namespace, name) != dir {
		return "", false
	}
	return p, true
}

// validSegment: a namespace or object name as one path segment (Kubernetes
// names hold no "/" and are never "." or "..", but the check does not rely
// on the caller).
func validSegment(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\x00")
}

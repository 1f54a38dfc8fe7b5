package juicefs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/engines/dataop"
)

// The workers and FUSE run juicefs directly, each argument a list element
// of the container's command: no shell reads option values or paths. The
// metadata URL is $(METAURL), which the kubelet expands from the Secret;
// every literal part goes through dataop.NoExpand, so that no spec string
// can name another variable.

// workerCacheDir is where a worker mounts the volume: the mount only feeds
// its cache directories.
const workerCacheDir = "/runtime-mnt/cache"

// workerCommand is a worker's argv: juicefs mount $(METAURL)
// /runtime-mnt/cache [--cache-dir=a:b --cache-size=MiB] [-o k[=v]]...
func workerCommand(cache []cacheDir, opts map[string]string) []string {
	argv := []string{"juicefs", "mount", metaURLRef, workerCacheDir}
	if len(cache) > 0 {
		dirs := make([]string, len(cache))
		for i, c := range cache {
			dirs[i] = c.Path
		}
		argv = append(argv, dataop.NoExpand("--cache-dir="+strings.Join(dirs, ":")), fmt.Sprintf("--cache-size=%d", cache[0].QuotaMiB))
	}
	return append(argv, mountOptions(opts)...)
}

// fuseScript unmounts what a previous FUSE container left at the mount
// point ($1), then runs the rest of its arguments (juicefs mount ...). It
// is a constant: the mount point and juicefs's arguments reach it as
// positional parameters, never as script text.
const fuseScript = `umount "$1" 2>/dev/null; shift; exec "$@"`

// fuseCommand is a FUSE client's argv: fuseScript with the mount point,
// then juicefs mount $(METAURL) <mount point> --foreground
// --metrics=0.0.0.0:<port> [-o k[=v]]...
func fuseCommand(mountPath string, metricsPort int, opts map[string]string) []string {
	mp := dataop.NoExpand(mountPath)
	argv := []string{"sh", "-c", dataop.NoExpand(fuseScript), "sh", mp,
		"juicefs", "mount", metaURLRef, mp, "--foreground", fmt.Sprintf("--metrics=0.0.0.0:%d", metricsPort)}
	return append(argv, mountOptions(opts)...)
}

// metaURLRef is the metadata URL as the kubelet expands it from the
// container's environment.
var metaURLRef = "$(" + metaURLEnv + ")"

// mountOptions are options as juicefs mount takes them, sorted by name:
// "-o", "name=value" (or "-o", "name" for an empty value).
func mountOptions(opts map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		o := k
		if v := opts[k]; v != "" {
			o += "=" + v
		}
		out = append(out, "-o", dataop.NoExpand(o))
	}
	return out
}

// preStop unmounts the FUSE mount when the pod stops. The kubelet runs a
// lifecycle command as it is, without $(VAR) expansion.
func preStop(mountPath string) []string { return []string{"umount", mountPath} }

package juicefs

import (
	"slices"
	"strconv"

	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// The workers and FUSE run juicefs directly, each argument a list element
// of the container's command: no shell reads option values or paths. The
// metadata URL and the other credentials are $(VAR) references, which the
// kubelet expands from the Secret-backed environment; every literal part
// goes through dataop.NoExpand, so that no spec string can name another
// variable.

// workerCacheDir is where a worker mounts the volume: the mount only feeds
// its cache directories.
const workerCacheDir = "/runtime-mnt/cache"

// eeMountBinary is the enterprise client's mount helper in its image
// (Fluid's path); the community image's juicefs is on PATH.
const eeMountBinary = "/sbin/mount.juicefs"

// metaURLRef is the metadata URL as the kubelet expands it from the
// container's environment.
var metaURLRef = "$(" + metaURLEnv + ")"

// setupCommand prepares the volume before anything mounts it. Community
// edition: juicefs format $(METAURL) <name> [flags], which leaves an
// existing volume formatted with the same settings as it is, updates the
// settings given, and with --no-update (added when storage or bucket is
// not given, as Fluid does) changes nothing. Enterprise edition: juicefs
// auth <name> --token=$(TOKEN) [flags], which writes
// /root/.juicefs/<name>.conf for the mount.
func setupCommand(v volume) []string {
	if v.edition == enterprise {
		return append([]string{"juicefs", "auth", dataop.NoExpand(v.name)}, flagArgs(v.setup)...)
	}
	setup := v.setup
	has := func(n string) bool { return slices.ContainsFunc(setup, func(f flag) bool { return f.Name == n }) }
	if (!has("storage") || !has("bucket")) && !has("no-update") {
		setup = append(slices.Clone(setup), flag{Name: "no-update", Bool: true})
	}
	return append([]string{"juicefs", "format", metaURLRef, dataop.NoExpand(v.name)}, flagArgs(layer(setup))...)
}

// quotaCommand sets the sub-directory's quota (Fluid's quota option):
// juicefs quota set <volume> --path=<subdir> --capacity=<GiB>.
func quotaCommand(v volume) []string {
	src := metaURLRef
	if v.edition == enterprise {
		src = dataop.NoExpand(v.name)
	}
	return []string{"juicefs", "quota", "set", src, dataop.NoExpand("--path=" + v.subdir), "--capacity=" + strconv.FormatInt(v.quotaGiB, 10)}
}

// mountCommand mounts the volume at mountPath with flags. Community
// edition: juicefs mount $(METAURL) <path> --flag=value... [-o fuse,options];
// juicefs mount runs in the foreground unless told otherwise. Enterprise
// edition: mount.juicefs <name> <path> -o option,name=value...
func mountCommand(v volume, mountPath string, flags []flag) []string {
	mp := dataop.NoExpand(mountPath)
	if v.edition == enterprise {
		return []string{eeMountBinary, dataop.NoExpand(v.name), mp, "-o", optionList(flags)}
	}
	return append([]string{"juicefs", "mount", metaURLRef, mp}, flagArgs(flags)...)
}

// fuseScript unmounts what a previous FUSE container left at the mount
// point ($1), runs the volume's set-up commands, each given as its
// argument count then its arguments, up to a count of 0, and then execs
// the rest of its arguments (the mount command). A set-up command that
// fails ends the container, which the kubelet restarts. It is a constant:
// the mount point and every command reach it as positional parameters,
// never as script text. FUSE runs the set-up itself, not in an init
// container, so that the FUSE sidecar the webhook injects (the FUSE
// container alone) formats or authorises the volume too, as Fluid's does.
const fuseScript = `umount "$1" 2>/dev/null; shift
while [ "$1" -gt 0 ]; do
  n=$1; shift
  (i=0; for a do i=$((i+1)); [ "$i" -eq 1 ] && set --; [ "$i" -le "$n" ] && set -- "$@" "$a"; done; exec "$@") || exit
  shift "$n"
done
shift; exec "$@"`

// fuseCommand is a FUSE client's argv: fuseScript with the mount point,
// the set-up commands, then the mount command.
func fuseCommand(v volume, mountPath string, flags []flag) []string {
	argv := []string{"sh", "-c", dataop.NoExpand(fuseScript), "sh", dataop.NoExpand(mountPath)}
	for _, c := range setupCommands(v) {
		argv = append(append(argv, strconv.Itoa(len(c))), c...)
	}
	return append(append(argv, "0"), mountCommand(v, mountPath, flags)...)
}

// setupCommands prepare the volume: setupCommand, then quotaCommand when
// the Dataset sets a quota.
func setupCommands(v volume) [][]string {
	out := [][]string{setupCommand(v)}
	if v.quotaGiB > 0 {
		out = append(out, quotaCommand(v))
	}
	return out
}

// preStop unmounts the FUSE mount when the pod stops. The kubelet runs a
// lifecycle command as it is, without $(VAR) expansion.
func preStop(mountPath string) []string { return []string{"umount", mountPath} }

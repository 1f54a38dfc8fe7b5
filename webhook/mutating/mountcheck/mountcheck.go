package mountcheck

import (
	"path"
	"strconv"
	"strings"
)

// script waits until every path argument is the mount point of a FUSE file
// system (type fuse, fuse.<name> or fuseblk) in /proc/self/mountinfo. $1 is
// the number of checks allowed in all, one a second; the paths follow,
// escaped as mountinfo writes them. It exits 1, naming the path, when the
// checks run out. It needs sh, and sleep when it has more than one check.
const script = `mounted() {
  while read -r _ _ _ _ point _ rest; do
    [ "$point" = "$1" ] || continue
    rest=" $rest"; rest=${rest#* - }
    case ${rest%% *} in fuse|fuse.*|fuseblk) return 0 ;; esac
  done </proc/self/mountinfo
  return 1
}
left=$1; shift
for p in "$@"; do
  until mounted "$p"; do
    left=$((left - 1))
    if [ "$left" -le 0 ]; then echo "sluice: $p is not a mounted FUSE file system" >&2; exit 1; fi
    sleep 1
  done
done`

// Name is the script's $0, which names it in process listings.
const Name = "sluice-mount-check"

// Command is the argv that waits up to checks seconds (at least one check)
// until every path is a mounted FUSE file system.
func Command(checks int, paths ...string) []string {
	if checks < 1 {
		checks = 1
	}
	argv := make([]string, 0, 5+len(paths))
	argv = append(argv, "sh", "-c", script, Name, strconv.Itoa(checks))
	for _, p := range paths {
		argv = append(argv, Escape(path.Clean(p)))
	}
	return argv
}

// mountinfoEscaper escapes a path the way /proc/self/mountinfo does. It is
// built once: a Replacer builds its tables on first use, which cost more
// than the replacing.
var mountinfoEscaper = strings.NewReplacer(" ", `\040`, "\t", `\011`, "\n", `\012`, `\`, `\134`)

// Escape writes p as /proc/self/mountinfo does.
func Escape(p string) string { return mountinfoEscaper.Replace(p) }

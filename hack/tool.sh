#!/usr/bin/env bash
# tool.sh MODULE_DIR PACKAGE OUTPUT
#
# Builds PACKAGE from the pinned tools module in MODULE_DIR into OUTPUT. A
# module that stamps versions into its commands has an executable
# MODULE_DIR/ldflags.sh printing the -ldflags value to build with (run in
# MODULE_DIR). Built binaries are kept in a cache outside the work tree
# (SLUICE_TOOLS_CACHE, default ~/.cache/sluice/tools), keyed by what goes into
# them: the module's go.mod and go.sum, its own Go sources (a module that
# builds its own commands, such as tests/tools/certmanager; tools.go files,
# built only with the tools tag, are left out) and ldflags. A fresh clone on
# the same machine copies them instead of building again, and a change to
# any of these builds anew.
set -euo pipefail

module_dir=$1
pkg=$2
out=$(realpath -m "$3")

cache_root=${SLUICE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sluice/tools}
ldflags=
if [[ -e "$module_dir/ldflags.sh" ]]; then
	ldflags=$(cd "$module_dir" && ./ldflags.sh) || { echo "tool.sh: $module_dir/ldflags.sh failed" >&2; exit 1; }
fi
# The module's own sources, by path and content.
sources=$(cd "$module_dir" && find . -name '*.go' ! -name tools.go -print0 | sort -z | xargs -0 -r sha256sum)
# A module with neither ldflags nor sources of its own keeps the key it had
# before either counted, so its cached binaries stay valid.
key=$({ cat "$module_dir/go.mod" "$module_dir/go.sum"; printf '%s' "$ldflags" "$sources"; } | sha256sum | cut -c1-16)
cached="$cache_root/$key/$(basename "$out")"

mkdir -p "$(dirname "$out")"
if [[ -x "$cached" ]]; then
	cp "$cached" "$out.tmp"
	mv "$out.tmp" "$out"
	echo "tool.sh: $(basename "$out") from cache $cached"
	exit 0
fi

echo "tool.sh: building $pkg from $module_dir (the first build of the Kubernetes binaries or rclone takes several minutes)"
start=$(date +%s)
# A line a minute, so that a long first build (CI on a fresh machine) is seen
# to progress. sleep holds none of the output's descriptors: a pipe reading
# this output closes when the build ends, not a minute later.
(while sleep 60 </dev/null >/dev/null 2>&1; do echo "tool.sh: still building $(basename "$out") ($(($(date +%s) - start))s)"; done) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
(cd "$module_dir" && go build -ldflags "$ldflags" -o "$out.tmp" "$pkg")
kill "$ticker" 2>/dev/null || true
mv "$out.tmp" "$out"
mkdir -p "$(dirname "$cached")"
cp "$out" "$cached.tmp" && mv "$cached.tmp" "$cached"
echo "tool.sh: built $(basename "$out") in $(( $(date +%s) - start ))s"

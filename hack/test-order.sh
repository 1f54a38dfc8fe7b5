#!/usr/bin/env bash
# test-order.sh FIRST... -- PACKAGES...
#
# Prints the import paths of PACKAGES (default ./...), those among FIRST
# first, in FIRST's order, then the rest in go list's order. go test -p N
# starts test binaries in the order it is given them, so the packages that
# run longest go first: started last, one of them would run on alone at the
# end with a core idle. A FIRST entry that is not a package fails go list.
set -euo pipefail
cd "$(dirname "$0")/.."

first=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	first+=("$1")
	shift
done
[ $# -gt 0 ] && shift

all=$(go list "${@:-./...}")
head=""
if [ ${#first[@]} -gt 0 ]; then
	head=$(go list "${first[@]}")
fi
for p in $head; do
	if grep -qxF "$p" <<<"$all"; then
		echo "$p"
	fi
done
grep -vxF -f <(printf '%s\n' $head) <<<"$all" || true

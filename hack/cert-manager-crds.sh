#!/usr/bin/env bash
# cert-manager-crds.sh OUTPUT
#
# Writes cert-manager's CRDs, as one YAML stream, from the cert-manager module
# pinned in tests/tools/certmanager (deploy/crds/), for the tests that run
# cert-manager's controller and cainjector (bin/cert-manager-controller,
# bin/cert-manager-cainjector) against a test API server.
set -euo pipefail

out=$(realpath -m "$1")
dir=$(cd "$(dirname "$0")/../tests/tools/certmanager" && go list -m -f '{{.Dir}}' github.com/cert-manager/cert-manager)
files=("$dir"/deploy/crds/*.yaml)
if [[ ! -e ${files[0]} ]]; then
	echo "cert-manager-crds.sh: no CRDs in $dir/deploy/crds" >&2
	exit 1
fi
mkdir -p "$(dirname "$out")"
for f in "${files[@]}"; do
	echo "---"
	sed '1{/^---$/d}' "$f"
done >"$out.tmp"
mv "$out.tmp" "$out"

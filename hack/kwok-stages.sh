#!/usr/bin/env bash
# kwok-stages.sh OUTPUT
#
# Writes the kwok stage configuration the simulated cluster uses: kwok's own
# stages for fast node start-up and the general pod lifecycle, taken from the
# pinned kwok module (tests/tools/kwok), so fake nodes become Ready and pods
# go Running/Ready and complete as kubelet would make them.
set -euo pipefail

out=$(realpath -m "$1")
dir=$(cd "$(dirname "$0")/../tests/tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
mkdir -p "$(dirname "$out")"
{
	cat "$dir/kustomize/stage/node/fast/node-initialize.yaml"
	for f in "$dir"/kustomize/stage/pod/general/pod-*.yaml; do
		echo "---"
		cat "$f"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"

#!/usr/bin/env bash
# kwok-stages.sh OUTPUT
#
# Writes the kwok stage configuration the simulated cluster uses: kwok's own
# stages for fast node start-up, node heartbeats (with leases, so that the
# node lifecycle controller never marks a fake node NotReady and its pods
# unready) and the general pod lifecycle, taken from the pinned kwok module
# (tests/tools/kwok), so fake nodes stay Ready and pods go Running/Ready and
# complete as kubelet would make them.
set -euo pipefail

out=$(realpath -m "$1")
dir=$(cd "$(dirname "$0")/../tests/tools/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
mkdir -p "$(dirname "$out")"
{
	cat "$dir/kustomize/stage/node/fast/node-initialize.yaml"
	echo "---"
	cat "$dir/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml"
	for f in "$dir"/kustomize/stage/pod/general/pod-*.yaml; do
		echo "---"
		cat "$f"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"

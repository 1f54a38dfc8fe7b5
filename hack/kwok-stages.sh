#!/usr/bin/env bash
# kwok-stages.sh OUTPUT
#
# Writes the kwok stage configuration the simulated cluster uses: kwok's own
# stages for fast node start-up, node heartbeats (with leases, so that the
# node lifecycle controller never marks a fake node NotReady and its pods
# unready) and the general pod lifecycle, taken from the pinned kwok module
# (tests/tools/kwok), so fake nodes stay Ready and pods go Running/Ready and
# complete as kubelet would make them.
#
# One change to kwok's stages: a deleted pod goes at a random time before
# its deletionTimestamp (its whole grace period, as a container ignoring
# SIGTERM would), unless the pod's
# pod-delete.stage.kwok.x-k8s.io/jitter-delay annotation bounds it, as the
# other stages' jitter-delay annotations bound theirs.
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
grace="expressionFrom: '.metadata.deletionTimestamp'"
bounded="expressionFrom: '.metadata.annotations[\"pod-delete.stage.kwok.x-k8s.io/jitter-delay\"] // .metadata.deletionTimestamp'"
if [[ $(grep -c -F "$grace" "$out.tmp") != 1 ]]; then
	echo "kwok-stages.sh: kwok's pod-delete stage no longer has one jitter from .metadata.deletionTimestamp" >&2
	exit 1
fi
sed -i "s|$grace|$bounded|" "$out.tmp"
mv "$out.tmp" "$out"

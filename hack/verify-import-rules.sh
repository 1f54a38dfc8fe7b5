#!/usr/bin/env bash
# verify-import-rules.sh [GOLANGCI_LINT]
#
# Proves that the import rules in .golangci.yml (depguard) bite. In a
# temporary copy of the work tree (tracked and untracked, not ignored, files),
# it adds one small package per rule, each importing what its rule forbids,
# and runs golangci-lint with depguard alone on them. Every probe must be
# refused by its rule, by name; any probe that passes fails this script.
# `make lint` checks the real tree passes; this checks the rules are not
# vacuous (a mistyped path glob would make them match nothing). The work tree
# itself is never touched. Takes a few seconds: depguard reads syntax only.
set -euo pipefail

lint=$(realpath "${1:-bin/golangci-lint}")
cd "$(dirname "$0")/.."
module=$(go list -m)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z -co --exclude-standard |
	tar --null --ignore-failed-read -T - -cf - 2>/dev/null |
	tar -xf - -C "$tmp"

# directory | file | import | rule that must refuse it
probes="
webhook/zzimportprobe|probe.go|$module/controller/volume|webhook-is-a-component
webhook/zzimportprobecsi|probe.go|$module/csi|webhook-is-a-component
controller/zzimportprobe|probe.go|$module/webhook/metrics|controller-is-a-component
csi/zzimportprobe|probe.go|$module/controller/volume|csi-is-a-component
api/zzimportprobe|probe.go|sigs.k8s.io/controller-runtime|api-is-a-leaf
api/zzimportprobesluice|probe.go|$module/engines|api-is-a-leaf
claim/zzimportprobe|probe.go|$module/webhook/metrics|claim-is-shared
engines/zzimportprobe|probe.go|$module/controller/helm|engines-are-plugins
engines/zzimportprobetest|probe_test.go|$module/controller/volume|engine-tests-render-charts
csi/zzimportprobeenginetest|probe.go|$module/engines/enginetest|enginetest-is-for-tests
engines/alluxio/zzimportprobe|probe.go|$module/engines/juicefs|engine-plugins-stand-alone
tests/support/zzimportprobe|probe.go|$module/tests/chart|suites-are-not-imported
tests/zzimportprobe|probe_test.go|$module/tests/controller|suites-are-not-imported
"

pkgs=()
while IFS='|' read -r dir file imp _; do
	[[ -n "$dir" ]] || continue
	mkdir -p "$tmp/$dir"
	printf 'package zzimportprobe\n\nimport _ "%s"\n' "$imp" >"$tmp/$dir/$file"
	pkgs+=("./$dir")
done <<<"$probes"

set +e
out=$(cd "$tmp" && "$lint" run --enable-only depguard "${pkgs[@]}" 2>&1)
rc=$?
set -e

failed=0
if [[ $rc -eq 0 ]]; then
	echo "verify-import-rules: golangci-lint passed packages that break the import rules"
	failed=1
fi
while IFS='|' read -r dir file imp rule; do
	[[ -n "$dir" ]] || continue
	if ! grep -qF "$dir/$file:3:8: import '$imp' is not allowed from list '$rule'" <<<"$out"; then
		echo "verify-import-rules: $dir/$file importing $imp was not refused by rule '$rule'"
		failed=1
	fi
done <<<"$probes"

if [[ $failed -ne 0 ]]; then
	echo "golangci-lint said (exit $rc):"
	echo "$out"
	exit 1
fi
echo "verify-import-rules: all $(grep -c '|' <<<"$probes") forbidden imports refused, each by its rule"

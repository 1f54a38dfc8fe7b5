#!/usr/bin/env bash
# unit-packages.sh [PACKAGES...]
#
# Prints the packages among PACKAGES (default ./...) whose tests need no kube
# binaries: no kube-apiserver, etcd or simulated cluster. A package is left out
# when its test binary links, directly or through any dependency, one of the
# packages that start a control plane:
#
#   tests/support/testenv    a real kube-apiserver and etcd (envtest underneath)
#   tests/support/simcluster the simulated cluster (scheduler, controller-manager, kwok)
#   controller-runtime's envtest, used directly (e.g. `sluice dev` in the root)
#
# The rule reads the import graph, so a new test that starts an API server
# through any of these is left out without editing a list. Packages without
# test files are left out too (there is nothing to run).
set -euo pipefail
cd "$(dirname "$0")/.."

module=$(go list -m)
cluster="^(${module//./\\.}/tests/support/testenv|${module//./\\.}/tests/support/simcluster|sigs\\.k8s\\.io/controller-runtime/pkg/envtest)\$"

# With -test, go list adds a "P.test" entry for every package P with tests;
# its Deps are everything the test binary links.
go list -test -f '{{.ImportPath}} {{join .Deps " "}}' "${@:-./...}" |
	CLUSTER="$cluster" awk '
		$1 !~ /\.test$/ { next }
		{
			for (i = 2; i <= NF; i++) if ($i ~ ENVIRON["CLUSTER"]) next
			print substr($1, 1, length($1) - 5)
		}' |
	sort

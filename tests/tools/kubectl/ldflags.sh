#!/usr/bin/env bash
# ldflags.sh prints the -ldflags value hack/tool.sh builds this module's
# commands with: the version of k8s.io/kubernetes pinned in go.mod, stamped
# where Kubernetes' own build stamps it (kube::version::ldflags in the
# module's hack/lib/version.sh). Without it kube-apiserver reports
# gitVersion v0.0.0-master, which fails Helm's check of a chart's kubeVersion.
# Run in this directory; the module's release time stands in for the build
# date, so the output (part of tool.sh's cache key) does not change from one
# build to the next.
set -euo pipefail

read -r version released < <(go list -m -f '{{.Version}} {{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
if [[ ! $version =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+(-.+)?$ ]]; then
	echo "ldflags.sh: k8s.io/kubernetes $version is not a vMAJOR.MINOR.PATCH release" >&2
	exit 1
fi
major=${BASH_REMATCH[1]}
minor=${BASH_REMATCH[2]}
# Kubernetes marks the minor of a pre-release with "+".
[[ -n ${BASH_REMATCH[3]} ]] && minor+="+"

flags=()
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	flags+=("-X $pkg.gitVersion=$version" "-X $pkg.gitMajor=$major" "-X $pkg.gitMinor=$minor" "-X $pkg.buildDate=$released")
done
echo "${flags[*]}"

#!/usr/bin/env bash
# ldflags.sh prints the -ldflags value hack/tool.sh builds kubectl with:
# the same version stamp as the control-plane binaries, read from this
# module's go.mod by tests/tools/kube/ldflags.sh (run in this directory).
set -euo pipefail
exec "$(dirname "$0")/../kube/ldflags.sh"

#!/usr/bin/env bash
# ldflags.sh prints the -ldflags value hack/tool.sh builds rclone with: the
# version of github.com/rclone/rclone pinned in go.mod, stamped where
# rclone's release build stamps it (fs.Version). Without it rclone reports
# v1.76.0-DEV. Run in this directory.
set -euo pipefail

version=$(go list -m -f '{{.Version}}' github.com/rclone/rclone)
echo "-X github.com/rclone/rclone/fs.Version=$version"

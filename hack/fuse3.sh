#!/usr/bin/env bash
# make test's set-up for tests/datapath, which mounts with rclone mount2
# through the fusermount3 helper (Debian's fuse3), as the FUSE image does.
# Without /dev/fuse, or without root, that test skips and needs nothing.
# As root with apt-get, fuse3 is installed; otherwise the run stops here,
# before any test, saying what to install.
set -euo pipefail
[[ -e /dev/fuse && $(id -u) -eq 0 ]] || exit 0
command -v fusermount3 >/dev/null 2>&1 && exit 0
if command -v apt-get >/dev/null 2>&1; then
	echo "make test: installing fuse3 (fusermount3, for tests/datapath) with apt-get" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fuse3 >/dev/null
	exit 0
fi
echo "make test: tests/datapath needs fusermount3: install your distribution's fuse3 package, or run without root to skip that test" >&2
exit 1

// Package sidecar injects FUSE sidecars: for each sidecar in a mutating
// decision it rewrites the dataset's PVC volume to a hostPath of the FUSE
// mount, adds the runtime's FUSE container (a native sidecar or a regular
// container) with the volumes it needs, renamed where they clash, and a
// mount-readiness gate; unprivileged sidecars lose their privileges.
package sidecar

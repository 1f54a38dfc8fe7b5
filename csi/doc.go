// Package csi is Sluice's CSI plugin for the driver fuse.csi.fluid.io: the
// Identity and Node services, and the minimal Controller that static PVs
// need. A dataset's PV names, in its volume attributes, the host directory
// where the runtime's FUSE mounts the dataset (fluid_path) and the node label
// that starts FUSE on a node. NodeStageVolume sets that label (lazy FUSE),
// NodePublishVolume waits for the FUSE mount and bind-mounts it into the Pod,
// and NodeUnstageVolume removes the label when the FUSE clean policy says so.
// A dataset's directory (fluid_path and its sub-path) is opened with openat2
// beneath the FUSE root, following no symbolic link, and that open directory
// is bind-mounted (Mounter.BindDir), so the FUSE program's links never
// decide what a Pod gets (audit N2). Other mount calls go through
// k8s.io/mount-utils. Fluid's knobs: a volume whose runtime names MountPod
// in fluid.io/skip-check-mount-ready-target waits for its directory, not
// for a FUSE mount (skipcheck.go); node_publish_method symlink (or
// --node-publish-method) publishes by symbolic link where that is as safe
// (symlink.go); --updatedb-conf keeps updatedb off the FUSE mounts
// (updatedb.go).
package csi

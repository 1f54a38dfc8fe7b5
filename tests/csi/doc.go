// Package csi holds tests of Sluice's CSI plugin: csi-sanity in-process
// against the driver on a temporary unix socket, with a real API server for
// the node labels and a real FUSE mount at the volume's fluid_path, and
// publish/unpublish through real bind mounts. They need root.
package csi

// Package volume builds a dataset's static PersistentVolume (CSI driver
// fuse.csi.fluid.io) and PersistentVolumeClaim, labelled so that the webhook
// recognises the claim as a dataset's, and finds the Pods that use a
// dataset (UsersOf), for which the deletion of its runtime and its own
// deletion wait.
package volume

// Package volume builds a dataset's static PersistentVolume (CSI driver
// fuse.csi.fluid.io) and PersistentVolumeClaim, labelled so that the webhook
// recognises the claim as a dataset's.
package volume

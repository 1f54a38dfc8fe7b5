// Package snapshot gathers, from informer caches, the cluster objects that a
// Pod's admission depends on: the Datasets behind its PVCs (a Dataset's own
// PVC, or one a ThinRuntime Dataset wraps: wrap.go), their runtimes, PVs and
// FUSE templates, and its namespace. It reads through a
// client.Reader, so the webhook serves it from caches (no API call per
// request) and the `sluice policy eval` command from objects in a file.
package snapshot

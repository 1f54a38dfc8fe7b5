// Package fusefs mounts a small in-memory FUSE file system (go-fuse) for
// tests that need a real FUSE mount, as a dataset runtime's FUSE pod would
// provide: it holds hello.txt and train/data.txt.
package fusefs

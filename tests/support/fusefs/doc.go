// Package fusefs mounts a small in-memory FUSE file system (go-fuse) for
// tests that need a real FUSE mount, as a dataset runtime's FUSE pod would
// provide: it holds hello.txt, train/data.txt and train/2024/part-0.txt,
// and two symbolic links, one inside it and one leading out of it.
package fusefs

// Package warmup is the program of a Thin DataLoad, `sluice warmup`: it
// reads every regular file at or below the given Dataset paths through the
// Dataset's mount in the load pod, so that the runtime's FUSE program
// fills its cache on that node. Paths are resolved inside the mount
// (os.Root): a path or a symbolic link cannot lead the program outside it.
package warmup

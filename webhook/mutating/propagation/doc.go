// Package propagation sets the mount propagation a mutating decision asks
// for on every container mount of the named volumes that has none, so that
// a restarted FUSE mount reaches running containers.
package propagation

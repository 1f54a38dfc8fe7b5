// Package juicefs is the JuiceFS engine: JuiceFSRuntime and its Dataset
// become the values of charts/juicefs (cache workers and a FUSE DaemonSet).
package juicefs

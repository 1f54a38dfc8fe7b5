// Package juicefs is the JuiceFS engine: JuiceFSRuntime and its Dataset
// become the values of charts/juicefs (cache workers and a FUSE DaemonSet),
// and the client's metrics (/metrics or the mount's .stats file) become cache
// counters.
package juicefs

// Package mountcheck builds the exec command that waits until paths are
// mounted FUSE file systems: a fixed POSIX shell script that reads
// /proc/self/mountinfo, with the paths passed as arguments, never spliced
// into the script. The FUSE sidecar's readiness gate and the app
// containers' postStart hooks run it.
package mountcheck

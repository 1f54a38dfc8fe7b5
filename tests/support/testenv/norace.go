//go:build !race

package testenv

// raceFactor is 1 outside -race builds: waits are the targets themselves
// (a policy change within 2 s, say).
const raceFactor = 1

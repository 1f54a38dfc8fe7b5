//go:build race

package testenv

// raceFactor: the race detector slows Go code 2-20 times (the policy
// compiler most), so waits for the webhook's and controller's reactions
// stretch by this much in a -race build.
const raceFactor = 6

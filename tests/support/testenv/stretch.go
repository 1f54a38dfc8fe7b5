package testenv

import "time"

// Stretch is how long a test waits for something that takes d in a
// normal build: d itself, or d times the race detector's slowdown in a
// -race build, so `go test -race` checks for races without failing the
// timing targets the normal build checks.
func Stretch(d time.Duration) time.Duration { return d * raceFactor }

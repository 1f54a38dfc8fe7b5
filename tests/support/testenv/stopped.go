package testenv

import (
	"fmt"
	"os"
)

// Stopped is a callback for a component a test runs in-process (e.g.
// controller.StartLocal's): it prints the error the component stopped
// with to stderr, naming it, where a test's log has no place before
// TestMain returns.
func Stopped(what string) func(error) {
	return func(err error) { fmt.Fprintln(os.Stderr, what+" stopped:", err) }
}

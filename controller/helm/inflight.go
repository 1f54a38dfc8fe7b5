package helm

import (
	"fmt"
	"sync"
)

// inFlight is the set of releases a Client has an action on. The
// controller keeps one Client per namespace (controller/helmclients.go),
// and each exported action holds its release for as long as it runs, so a
// pending record of this process's writer that an action finds while it
// holds the release is one no action of this process is still writing:
// Helm left it so when a fault hit its final record write, which Helm
// only logs (stale.go).
type inFlight struct {
	mu    sync.Mutex
	names map[string]bool
}

// BusyError says that this Client already has an action on the release:
// the caller tries again later, as for Helm's "another operation is in
// progress".
type BusyError struct{ Release string }

func (e *BusyError) Error() string {
	return fmt.Sprintf("release %s: another action of this controller on it is in progress", e.Release)
}

// hold takes the release for one action and returns its release; it
// fails with a *BusyError while another action holds it.
func (f *inFlight) hold(name string) (func(), error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.names[name] {
		return nil, &BusyError{Release: name}
	}
	if f.names == nil {
		f.names = map[string]bool{}
	}
	f.names[name] = true
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.names, name)
	}, nil
}

// holding runs fn with the release held (inFlight.hold).
func holding[T any](c *Client, name string, fn func() (T, error)) (T, error) {
	done, err := c.actions.hold(name)
	if err != nil {
		var zero T
		return zero, err
	}
	defer done()
	return fn()
}

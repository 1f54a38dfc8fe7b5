package opalock

import "sync"

var mu sync.Mutex

// Do runs f while no other partial evaluation, compilation or query
// preparation runs in the process, and returns its error.
func Do(f func() error) error {
	mu.Lock()
	defer mu.Unlock()
	return f()
}

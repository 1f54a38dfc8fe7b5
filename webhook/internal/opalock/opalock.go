package opalock

import "sync"

// lock is the process's one OPA lock: held by at most one caller, given to
// a waiting Do before any waiting Background.
type lock struct {
	mu      sync.Mutex
	free    *sync.Cond
	held    bool
	waiting int // callers of Do waiting for the lock
}

var l = func() *lock {
	x := &lock{}
	x.free = sync.NewCond(&x.mu)
	return x
}()

// Do runs f while no other partial evaluation, compilation or query
// preparation runs in the process, and returns its error. It goes before
// every caller of Background that is waiting.
func Do(f func() error) error {
	l.mu.Lock()
	l.waiting++
	for l.held {
		l.free.Wait()
	}
	l.waiting--
	l.held = true
	l.mu.Unlock()
	defer l.release()
	return f()
}

// Background is Do for work that may wait: it takes the lock only when no
// caller of Do is waiting for it. The specialised query builds run in
// it, so that a policy bundle load (which serves every admission after it)
// waits for at most the one build that runs, not for every build queued
// behind it.
func Background(f func() error) error {
	l.mu.Lock()
	for l.held || l.waiting > 0 {
		l.free.Wait()
	}
	l.held = true
	l.mu.Unlock()
	defer l.release()
	return f()
}

func (l *lock) release() {
	l.mu.Lock()
	l.held = false
	l.mu.Unlock()
	l.free.Broadcast()
}

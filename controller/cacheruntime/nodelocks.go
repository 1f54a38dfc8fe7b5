package cacheruntime

import "sync"

// nodeLocks serialise this controller's label changes per node, so that a
// change recomputed from a fresh read (patchNode) is not overtaken by
// another of its own.
type nodeLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

// lock locks the node's mutex and returns its unlock.
func (l *nodeLocks) lock(name string) func() {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*sync.Mutex{}
	}
	m, ok := l.m[name]
	if !ok {
		m = &sync.Mutex{}
		l.m[name] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

package csi

import "sync"

// keyLocks hands out try-locks per key (volume ID or target path); a busy
// key makes the RPC fail with codes.Aborted, and the CO retries.
type keyLocks struct {
	mu   sync.Mutex
	held map[string]struct{}
}

func (l *keyLocks) tryLock(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[string]struct{}{}
	}
	if _, busy := l.held[key]; busy {
		return false
	}
	l.held[key] = struct{}{}
	return true
}

func (l *keyLocks) unlock(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, key)
}

package ownwrites

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// remembered bounds the versions remembered per object.
const remembered = 8

// Memory holds, per object, the resourceVersions that the reconciler's
// writes replaced since the cache last caught up, and a value of the last
// write (what the caller needs of it: the object it returned, when it
// happened).
type Memory[T any] struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*entry[T]
}

type entry[T any] struct {
	replaced []string
	last     T
}

// Wrote records that a write replaced version replaced of the object, with
// last the value to return for it.
func (w *Memory[T]) Wrote(key types.NamespacedName, replaced string, last T) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]*entry[T]{}
	}
	e, ok := w.m[key]
	if !ok {
		e = &entry[T]{}
		w.m[key] = e
	}
	e.replaced = append(e.replaced[max(0, len(e.replaced)-remembered+1):], replaced)
	e.last = last
}

// Behind reports whether version, as the cache shows the object, is one
// that the remembered writes replaced, with the last write's value. Any
// other version means the cache has caught up (or someone else wrote), and
// the memory of the object is dropped.
func (w *Memory[T]) Behind(key types.NamespacedName, version string) (T, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok && slices.Contains(e.replaced, version) {
		return e.last, true
	}
	delete(w.m, key)
	var zero T
	return zero, false
}

// Forget drops the memory of a gone object.
func (w *Memory[T]) Forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}

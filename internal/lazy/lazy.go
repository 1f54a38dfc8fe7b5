package lazy

import (
	"slices"
	"sync"
	"sync/atomic"
)

// entry is one registered value: its name, and how to compute it.
type entry struct {
	name  string
	build func()
	done  *atomic.Bool
}

var (
	mu      sync.Mutex
	entries []entry
)

func register(name string, build func(), done *atomic.Bool) {
	mu.Lock()
	defer mu.Unlock()
	entries = append(entries, entry{name: name, build: build, done: done})
}

func registered() []entry {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(entries)
}

// Value returns a function that returns f's value, computed once: on its
// first call or by Build, whichever comes first. name says what the value
// is (in Pending).
func Value[T any](name string, f func() T) func() T {
	var done atomic.Bool
	get := sync.OnceValue(func() T {
		defer done.Store(true)
		return f()
	})
	register(name, func() { get() }, &done)
	return get
}

// Values is Value for a function of two results (a value and its error).
func Values[T, U any](name string, f func() (T, U)) func() (T, U) {
	var done atomic.Bool
	get := sync.OnceValues(func() (T, U) {
		defer done.Store(true)
		return f()
	})
	register(name, func() { get() }, &done)
	return get
}

// Build computes every registered value not computed yet. A value's error
// is its own: it is returned where the value is used, as before Build.
func Build() {
	for _, e := range registered() {
		e.build()
	}
}

// Pending names the registered values not computed yet, in the order they
// were registered.
func Pending() []string {
	var out []string
	for _, e := range registered() {
		if !e.done.Load() {
			out = append(out, e.name)
		}
	}
	return out
}

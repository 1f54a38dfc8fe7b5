package policy

import (
	"container/list"
	"sync"
)

// Memo remembers the decisions of recent evaluations, keyed by the bundle
// generation and the full input. Rego evaluation is a pure function of
// the bundle and the input when the bundle calls no nondeterministic builtin
// (time, random, HTTP), so a repeated input (the replicas of a Deployment
// have identical admission inputs) can reuse the decision. Engine disables
// memoisation for bundles that are not deterministic.
//
// The key, of type K, is what the input is built from (the webhook's Go
// input document, so that a repeated input is recognised without building
// its Rego value): equal keys, by the memo's equality, must make equal
// inputs, and each key comes with a hash that equal keys share. A key must
// not change once it is put.
//
// It is bounded by the number of decisions and by the approximate size of
// the inputs it holds (InputSize), so that inputs made large on purpose
// (dry-run Pods with unique annotations of hundreds of KiB, which cost the
// sender nothing) cannot grow the webhook's memory beyond maxBytes; an
// input larger than an eighth of maxBytes is not remembered at all.
type Memo[K, T any] struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	equal    func(a, b *K) bool
	order    *list.List // front: most recently used *memoEntry
	buckets  map[uint64][]*list.Element
}

type memoEntry[K, T any] struct {
	gen   uint64
	hash  uint64
	size  int64
	key   K
	value T
}

// NewMemo returns a memo holding at most max decisions whose inputs add up
// to at most maxBytes (InputSize), whose keys are the same input when
// equal says so; max <= 0 or maxBytes <= 0 disables it.
func NewMemo[K, T any](max int, maxBytes int64, equal func(a, b *K) bool) *Memo[K, T] {
	if maxBytes <= 0 {
		max = 0
	}
	return &Memo[K, T]{max: max, maxBytes: maxBytes, equal: equal, order: list.New(), buckets: map[uint64][]*list.Element{}}
}

// maxBucket bounds the decisions kept under one hash, and so the keys a
// lookup compares while it holds the memo's lock: inputs made to collide
// (a hash need not cover every part of a key) cannot make each admission
// compare thousands of them.
const maxBucket = 8

// Enabled reports whether m remembers anything, so that a caller can
// spare computing a key.
func (m *Memo[K, T]) Enabled() bool { return m != nil && m.max > 0 }

// Admits reports whether m would remember an input of InputSize size, so
// that a caller can spare making a key it would not keep.
func (m *Memo[K, T]) Admits(size int64) bool { return m.Enabled() && size <= m.maxBytes/8 }

// Get returns the decision remembered for the input of key, whose hash is
// hash, under bundle generation gen.
func (m *Memo[K, T]) Get(gen, hash uint64, key *K) (T, bool) {
	var zero T
	if !m.Enabled() {
		return zero, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, el := range m.buckets[hash] {
		e := el.Value.(*memoEntry[K, T])
		if e.gen == gen && m.equal(&e.key, key) {
			m.order.MoveToFront(el)
			return e.value, true
		}
	}
	return zero, false
}

// Put remembers value for the input of key (its hash hash, the input's
// InputSize size) under bundle generation gen, evicting the least recently
// used decisions while over either bound, and the oldest of its hash's
// when that holds maxBucket already. The key must not change later.
func (m *Memo[K, T]) Put(gen, hash uint64, key K, size int64, value T) {
	if !m.Admits(size) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if b := m.buckets[hash]; len(b) >= maxBucket {
		m.remove(b[0])
	}
	el := m.order.PushFront(&memoEntry[K, T]{gen: gen, hash: hash, size: size, key: key, value: value})
	m.buckets[hash] = append(m.buckets[hash], el)
	m.bytes += size
	for m.order.Len() > m.max || m.bytes > m.maxBytes {
		m.remove(m.order.Back())
	}
}

// Bytes returns the approximate size of the remembered inputs.
func (m *Memo[K, T]) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// Len returns the number of remembered decisions.
func (m *Memo[K, T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

func (m *Memo[K, T]) remove(el *list.Element) {
	e := el.Value.(*memoEntry[K, T])
	m.order.Remove(el)
	m.bytes -= e.size
	b := m.buckets[e.hash]
	for i, x := range b {
		if x == el {
			b = append(b[:i], b[i+1:]...)
			break
		}
	}
	if len(b) == 0 {
		delete(m.buckets, e.hash)
	} else {
		m.buckets[e.hash] = b
	}
}

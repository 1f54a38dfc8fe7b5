package policy

import (
	"container/list"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Memo remembers the decisions of recent evaluations, keyed by the bundle
// generation and the full input value. Rego evaluation is a pure function of
// the bundle and the input when the bundle calls no nondeterministic builtin
// (time, random, HTTP), so a repeated input (the replicas of a Deployment
// have identical admission inputs) can reuse the decision. Engine disables
// memoisation for bundles that are not deterministic.
//
// It is bounded by the number of decisions and by the approximate size of
// the inputs it holds (InputSize), so that inputs made large on purpose
// (dry-run Pods with unique annotations of hundreds of KiB, which cost the
// sender nothing) cannot grow the webhook's memory beyond maxBytes; an
// input larger than an eighth of maxBytes is not remembered at all.
type Memo[T any] struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	order    *list.List // front: most recently used *memoEntry
	buckets  map[uint64][]*list.Element
}

type memoEntry[T any] struct {
	gen   uint64
	hash  uint64
	size  int64
	input ast.Value
	value T
}

// NewMemo returns a memo holding at most max decisions whose inputs add up
// to at most maxBytes (InputSize); max <= 0 or maxBytes <= 0 disables it.
func NewMemo[T any](max int, maxBytes int64) *Memo[T] {
	if maxBytes <= 0 {
		max = 0
	}
	return &Memo[T]{max: max, maxBytes: maxBytes, order: list.New(), buckets: map[uint64][]*list.Element{}}
}

// Get returns the decision remembered for input under bundle generation gen.
func (m *Memo[T]) Get(gen uint64, input ast.Value) (T, bool) {
	var zero T
	if m == nil || m.max <= 0 {
		return zero, false
	}
	h := uint64(input.Hash())
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, el := range m.buckets[h] {
		e := el.Value.(*memoEntry[T])
		if e.gen == gen && e.input.Compare(input) == 0 {
			m.order.MoveToFront(el)
			return e.value, true
		}
	}
	return zero, false
}

// Put remembers value for input under bundle generation gen, evicting the
// least recently used decision when full. The input must not change later.
func (m *Memo[T]) Put(gen uint64, input ast.Value, value T) {
	if m == nil || m.max <= 0 {
		return
	}
	size := InputSize(input)
	if size > m.maxBytes/8 {
		return
	}
	h := uint64(input.Hash())
	m.mu.Lock()
	defer m.mu.Unlock()
	el := m.order.PushFront(&memoEntry[T]{gen: gen, hash: h, size: size, input: input, value: value})
	m.buckets[h] = append(m.buckets[h], el)
	m.bytes += size
	for m.order.Len() > m.max || m.bytes > m.maxBytes {
		m.remove(m.order.Back())
	}
}

// Bytes returns the approximate size of the remembered inputs.
func (m *Memo[T]) Bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// Len returns the number of remembered decisions.
func (m *Memo[T]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}

func (m *Memo[T]) remove(el *list.Element) {
	e := el.Value.(*memoEntry[T])
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

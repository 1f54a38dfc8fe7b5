package snapshot

import (
	"reflect"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/webhook/internal/regovalue"
)

// memoFloor is the least number of entries a memo holds before it starts
// over. The memos of dataset volumes hold more in a cluster of more
// dataset claims (Gatherer.volumeLimit).
const memoFloor = 8192

// memo is a map safe for concurrent use that starts over when a put finds
// it holding the limit it is given.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func (m *memo[K, V]) get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

func (m *memo[K, V]) put(k K, v V, limit int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= limit {
		m.m = make(map[K]V)
	}
	m.m[k] = v
}

// volumeMemo remembers gathered dataset volumes, with their policy values,
// keyed by the volume and the resource versions of every object they were
// built from, so an unchanged dataset is converted to a Rego value once.
type volumeMemo = memo[string, DatasetVolume]

// namespaceMemo remembers the latest version of each namespace, with its
// policy value, by name: one entry per namespace.
type namespaceMemo = memo[string, namespaceEntry]

// namespaceEntry is a remembered namespace and the version it was built
// from.
type namespaceEntry struct {
	uid, resourceVersion string
	ns                   Namespace
}

// trackedKey identifies a Pod volume by namespace, claim and volume name.
type trackedKey struct{ namespace, claim, volume string }

// trackedEntry is a gathered volume (ok false: not a dataset volume) with
// the objects it was built from.
type trackedEntry struct {
	dv   DatasetVolume
	ok   bool
	deps []dependency
}

// trackedMemo remembers gathered volumes by Pod volume while changes are
// tracked; an entry is valid while its dependencies are unchanged.
type trackedMemo = memo[trackedKey, trackedEntry]

// plainVolume is DatasetVolume without its RegoValue method.
type plainVolume DatasetVolume

// RegoValue implements regovalue.Valuer: the volume's policy value, computed
// once for a remembered volume.
func (dv DatasetVolume) RegoValue() (ast.Value, error) { return lazyGet(dv.value, plainVolume(dv)) }

// plainNamespace is Namespace without its RegoValue method.
type plainNamespace Namespace

// RegoValue implements regovalue.Valuer: the namespace's policy value,
// computed once for a remembered namespace (with ToValue; Namespace has no
// struct field that ToCompactValue would leave out).
func (ns Namespace) RegoValue() (ast.Value, error) { return lazyGet(ns.value, plainNamespace(ns)) }

// lazyGet returns the policy value of plain, converted once if l is set (a
// remembered object), or on every call if it is nil.
func lazyGet[T any](l *lazyValue, plain T) (ast.Value, error) {
	if l == nil {
		return regovalue.ToValue(plain)
	}
	l.once.Do(func() { l.v, l.err = regovalue.ToValue(plain) })
	return l.v, l.err
}

// Equal reports whether dv and o give policies the same value: equal in
// every field that policies see, that is every field but the FUSE
// template (not part of the input; the mutators read it) and the
// remembered policy value, which is computed from the others and which
// another request may be computing. The decision memo keys inputs by it.
func (dv DatasetVolume) Equal(o DatasetVolume) bool {
	dv.value, o.value, dv.Fuse, o.Fuse = nil, nil, nil, nil
	return reflect.DeepEqual(&dv, &o)
}

// Equal reports whether ns and o give policies the same value: equal in
// every field but the remembered policy value (see DatasetVolume.Equal).
func (ns Namespace) Equal(o Namespace) bool {
	ns.value, o.value = nil, nil
	return reflect.DeepEqual(&ns, &o)
}

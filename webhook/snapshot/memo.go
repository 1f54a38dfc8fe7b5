package snapshot

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/webhook/policy"
)

// memoLimit bounds the remembered dataset volumes; past it the memo starts over.
const memoLimit = 8192

// volumeMemo remembers gathered dataset volumes, with their policy values,
// keyed by the volume and the resource versions of every object they were
// built from, so an unchanged dataset is converted to a Rego value once.
type volumeMemo struct {
	mu sync.Mutex
	m  map[string]DatasetVolume
}

func (vm *volumeMemo) get(key string) (DatasetVolume, bool) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	dv, ok := vm.m[key]
	return dv, ok
}

func (vm *volumeMemo) put(key string, dv DatasetVolume) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.m == nil || len(vm.m) >= memoLimit {
		vm.m = make(map[string]DatasetVolume)
	}
	vm.m[key] = dv
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
type trackedMemo struct {
	mu sync.Mutex
	m  map[trackedKey]trackedEntry
}

func (tm *trackedMemo) get(k trackedKey) (trackedEntry, bool) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	e, ok := tm.m[k]
	return e, ok
}

func (tm *trackedMemo) put(k trackedKey, e trackedEntry) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.m == nil || len(tm.m) >= memoLimit {
		tm.m = make(map[trackedKey]trackedEntry)
	}
	tm.m[k] = e
}

// plainVolume is DatasetVolume without its RegoValue method.
type plainVolume DatasetVolume

// RegoValue implements policy.Valuer: the volume's policy value, computed
// once for a remembered volume.
func (dv DatasetVolume) RegoValue() (ast.Value, error) {
	if dv.value == nil {
		return policy.ToValue(plainVolume(dv))
	}
	dv.value.once.Do(func() { dv.value.v, dv.value.err = policy.ToValue(plainVolume(dv)) })
	return dv.value.v, dv.value.err
}

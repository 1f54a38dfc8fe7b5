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

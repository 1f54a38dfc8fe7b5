package cacheruntime

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// This file is an optimisation: without it the reconciler is still correct
// (a status computed from a cache behind the controller's last write is
// refused by the write's resourceVersion precondition, and writeStatus
// then reads the runtime afresh), but such a reconcile costs a refused
// patch and a live read for nothing. The informer cache lags behind the
// controller's own writes, and the objects a release creates wake the
// runtime while the cache may not show its last status write yet.

// ownWrites remembers, per runtime, the runtime as this reconciler's last
// write of it returned it, and the resourceVersions its writes since the
// cache last caught up replaced. A reconcile that reads one of those
// versions from the cache reads the past: the server holds at least the
// remembered runtime, which is used instead.
type ownWrites struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*ownWrite
}

type ownWrite struct {
	replaced []string
	latest   datav1alpha1.RuntimeObject
}

// remembered bounds the versions remembered per runtime.
const remembered = 8

// wrote records that a write replaced version replaced of the runtime and
// returned result (the API server's answer, kept as a copy).
func (w *ownWrites) wrote(key types.NamespacedName, replaced string, result datav1alpha1.RuntimeObject) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]*ownWrite{}
	}
	last, ok := w.m[key]
	if !ok {
		last = &ownWrite{}
		w.m[key] = last
	}
	last.replaced = append(last.replaced[max(0, len(last.replaced)-remembered+1):], replaced)
	last.latest = result.DeepCopyObject().(datav1alpha1.RuntimeObject)
}

// current returns the runtime the reconcile should work from: cached, or,
// when cached is a version this reconciler's own writes replaced, a copy
// of the runtime its last write returned. Any other version means the
// cache has caught up (or someone else wrote), and the memory is dropped.
func (w *ownWrites) current(key types.NamespacedName, cached datav1alpha1.RuntimeObject) datav1alpha1.RuntimeObject {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.m[key]
	if ok && slices.Contains(last.replaced, cached.GetResourceVersion()) {
		return last.latest.DeepCopyObject().(datav1alpha1.RuntimeObject)
	}
	delete(w.m, key)
	return cached
}

// forget drops the memory of a gone runtime.
func (w *ownWrites) forget(key types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, key)
}

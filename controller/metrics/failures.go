package metrics

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Failures counts each runtime's failed reconciles, for Fluid's
// runtime_setup_error_total and runtime_sync_healthcheck_error_total. The
// counts are kept by the runtime's UID: a runtime deleted and created again
// under its name starts from zero, and the Collector exports (and keeps)
// the counts of runtimes that exist only. The zero value is ready to use;
// the runtime reconcilers count (controller/cacheruntime.FailureCounter).
type Failures struct {
	mu sync.Mutex
	m  map[types.UID]*failureCounts
}

type failureCounts struct {
	setup, healthCheck float64
}

// SetupError counts a failed reconcile of rt before its Dataset was bound
// to it.
func (f *Failures) SetupError(rt client.Object) {
	f.add(rt.GetUID(), func(c *failureCounts) { c.setup++ })
}

// HealthCheckError counts a reconcile of a bound rt that found it
// unhealthy.
func (f *Failures) HealthCheckError(rt client.Object) {
	f.add(rt.GetUID(), func(c *failureCounts) { c.healthCheck++ })
}

func (f *Failures) add(uid types.UID, inc func(*failureCounts)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[types.UID]*failureCounts{}
	}
	c := f.m[uid]
	if c == nil {
		c = &failureCounts{}
		f.m[uid] = c
	}
	inc(c)
}

// counts are uid's counts (zero when it never failed); nil Failures have
// none.
func (f *Failures) counts(uid types.UID) failureCounts {
	if f == nil {
		return failureCounts{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.m[uid]; c != nil {
		return *c
	}
	return failureCounts{}
}

// keep forgets the counts of every runtime not in live (deleted ones).
func (f *Failures) keep(live map[types.UID]bool) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for uid := range f.m {
		if !live[uid] {
			delete(f.m, uid)
		}
	}
}

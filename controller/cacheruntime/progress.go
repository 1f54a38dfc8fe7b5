package cacheruntime

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// progressEvery bounds how often the status of a runtime that waits for its
// masters or workers is rewritten only because figures that do not decide
// its readiness moved: scheduling counts (the StatefulSet appeared, pods
// were created or scheduled) and FUSE figures (FUSE runs only where Pods
// use the Dataset, so it never holds binding back). Each of those changes
// wakes the runtime, and each status write is an API write that every
// watcher of the runtime receives. Everything else (the Ready condition,
// master and worker phases and ready counts) is written at once; the rest
// catches up with the first requeue of the waiting runtime after
// progressEvery.
const progressEvery = 15 * time.Second

// written remembers the status this controller last wrote for each runtime
// (by UID) and when. The informer cache lags behind the controller's own
// writes, most under load, and a runtime woken again meanwhile would
// otherwise write the same status a second time.
type written struct {
	mu     sync.Mutex
	m      map[types.UID]writtenStatus
	pruned time.Time
}

type writtenStatus struct {
	status datav1alpha1.RuntimeStatus
	at     time.Time
}

// recent returns the status written for uid within d, if any.
func (w *written) recent(uid types.UID, d time.Duration) (*datav1alpha1.RuntimeStatus, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[uid]
	if !ok || time.Since(e.at) >= d {
		return nil, false
	}
	return &e.status, true
}

// record notes that s was written for uid now; entries older than
// progressEvery are dropped now and then, so the map holds only the
// runtimes written recently.
func (w *written) record(uid types.UID, s *datav1alpha1.RuntimeStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	if w.m == nil {
		w.m = map[types.UID]writtenStatus{}
	}
	if now.Sub(w.pruned) > progressEvery {
		for k, e := range w.m {
			if now.Sub(e.at) >= progressEvery {
				delete(w.m, k)
			}
		}
		w.pruned = now
	}
	w.m[uid] = writtenStatus{status: *s.DeepCopy(), at: now}
}

// forget drops what is known about uid.
func (w *written) forget(uid types.UID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, uid)
}

// progressOnly reports whether two runtime statuses differ in no more than
// the figures progressEvery describes.
func progressOnly(a, b *datav1alpha1.RuntimeStatus) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	for _, s := range []*datav1alpha1.RuntimeStatus{a, b} {
		s.DesiredMasterNumberScheduled, s.CurrentMasterNumberScheduled = 0, 0
		s.DesiredWorkerNumberScheduled, s.CurrentWorkerNumberScheduled, s.WorkerNumberAvailable, s.WorkerNumberUnavailable = 0, 0, 0, 0
		s.Selector = ""
		s.FusePhase, s.DesiredFuseNumberScheduled, s.CurrentFuseNumberScheduled = "", 0, 0
		s.FuseNumberReady, s.FuseNumberAvailable, s.FuseNumberUnavailable = 0, 0, 0
	}
	return equality.Semantic.DeepEqual(a, b)
}

package cacheruntime

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
)

// Calculating is the ufsTotal and fileNum a Dataset shows while its first
// metadata Job runs, as Fluid shows them.
const Calculating = "[Calculating]"

// metadataRetry is how long after a failed metadata Job the next starts.
const metadataRetry = 5 * time.Minute

// metadataRecord is what the reconciler remembers of a Dataset's metadata
// sync. It is kept in memory only: after a restart a Dataset whose ufsTotal
// is known is counted again one refresh interval later, not at once, so a
// restart starts no Job storm.
type metadataRecord struct {
	// at is when the Dataset's usage was last counted (or first seen
	// counted), generation its metadata.generation then.
	at         time.Time
	generation int64
	// retryAt is when the next Job may start after one failed.
	retryAt time.Time
	// handled is the UID of the last Job read and deleted, which a cache
	// that lags may still show.
	handled types.UID
	// counted is the UID of the Dataset whose status holds the last count:
	// a cache that lags may still show that Dataset Calculating after the
	// count is written and its Job deleted, which is no reason for another.
	counted types.UID
}

// metadataRecords are the records of every Dataset, by key.
type metadataRecords struct {
	mu sync.Mutex
	m  map[types.NamespacedName]metadataRecord
}

// get returns key's record, and whether there is one.
func (m *metadataRecords) get(key types.NamespacedName) (metadataRecord, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.m[key]
	return rec, ok
}

// update changes key's record (a new one starts zero).
func (m *metadataRecords) update(key types.NamespacedName, change func(*metadataRecord)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[types.NamespacedName]metadataRecord{}
	}
	rec := m.m[key]
	change(&rec)
	m.m[key] = rec
}

// forget drops key's record.
func (m *metadataRecords) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, key)
}

// metadataDue decides whether the Dataset's metadata Job starts now; if not,
// next is when it will be due (zero: only when something changes). In
// order: not before retryAt after a failure; at once while the Dataset's
// usage is unknown (ufsTotal empty or Calculating, Fluid's only trigger)
// unless the record says a count of this Dataset was written (the cache
// lags);
// never on a Dataset the reconciler has no record of (seen false: the
// caller records it as counted now); then when its spec changed (its
// generation), when a DataLoad with loadMetadata completed after the last
// count, or when refresh (0: never) has passed since.
func metadataDue(now time.Time, rec metadataRecord, seen bool, ds *datav1alpha1.Dataset, loads []datav1alpha1.DataLoad, refresh time.Duration) (due bool, next time.Time) {
	switch {
	case now.Before(rec.retryAt):
		return false, rec.retryAt
	case (ds.Status.UfsTotal == "" || ds.Status.UfsTotal == Calculating) && (rec.counted == "" || rec.counted != ds.UID):
		return true, time.Time{}
	case !seen:
		rec.at = now
	case ds.Generation != rec.generation:
		return true, time.Time{}
	case loadedMetadataSince(loads, ds, rec.at):
		return true, time.Time{}
	}
	if refresh <= 0 {
		return false, time.Time{}
	}
	if at := rec.at.Add(refresh); now.Before(at) {
		return false, at
	}
	return true, time.Time{}
}

// loadedMetadataSince says whether one of loads, a DataLoad of ds with
// loadMetadata, last completed after t: the metadata it loaded may have
// changed the Dataset's size.
func loadedMetadataSince(loads []datav1alpha1.DataLoad, ds *datav1alpha1.Dataset, t time.Time) bool {
	for i := range loads {
		l := &loads[i]
		ns, name, ok := l.GetTargetDataset()
		if ok && l.Spec.LoadMetadata && ns == ds.Namespace && name == ds.Name && completedAt(l).After(t) {
			return true
		}
	}
	return false
}

// completedAt is when the DataLoad last completed: a Cron one's
// lastSuccessfulTime, a Once one's Complete condition; zero when it has
// not.
func completedAt(l *datav1alpha1.DataLoad) time.Time {
	if l.Status.LastSuccessfulTime != nil {
		return l.Status.LastSuccessfulTime.Time
	}
	if c := meta.FindStatusCondition(l.Status.Conditions, operation.ConditionComplete); c != nil && c.Status == metav1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

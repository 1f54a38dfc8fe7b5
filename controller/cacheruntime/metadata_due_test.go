package cacheruntime

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

func TestMetadataDue(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	counted := func(total string, generation int64) *datav1alpha1.Dataset {
		ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d", UID: "ds-uid", Generation: generation}}
		ds.Status.UfsTotal = total
		return ds
	}
	load := func(dataset string, loadMetadata bool, done time.Time) datav1alpha1.DataLoad {
		l := datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "l"}}
		l.Spec.Dataset.Name, l.Spec.LoadMetadata = dataset, loadMetadata
		l.Status.LastSuccessfulTime = &metav1.Time{Time: done}
		return l
	}
	onceDone := func(dataset string, done time.Time) datav1alpha1.DataLoad {
		l := load(dataset, true, done)
		l.Status.LastSuccessfulTime = nil
		l.Status.Conditions = []metav1.Condition{{Type: "Complete", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(done)}}
		return l
	}
	hourAgo := metadataRecord{at: now.Add(-time.Hour), generation: 1}
	written := metadataRecord{at: now.Add(-time.Second), generation: 1, counted: "ds-uid"}
	for _, c := range []struct {
		name    string
		rec     metadataRecord
		seen    bool
		ds      *datav1alpha1.Dataset
		loads   []datav1alpha1.DataLoad
		refresh time.Duration
		due     bool
		next    time.Time
	}{
		{name: "never counted", ds: counted("", 1), due: true},
		{name: "a count is under way (Calculating)", seen: true, rec: hourAgo, ds: counted(Calculating, 1), due: true},
		{name: "counted, the cache still shows Calculating", seen: true, rec: written, ds: counted(Calculating, 1), due: false},
		{name: "counted, the cache still shows Calculating, with refresh", seen: true, rec: written, ds: counted(Calculating, 1),
			refresh: time.Hour, due: false, next: now.Add(-time.Second).Add(time.Hour)},
		{name: "a Dataset of the same name, never counted", seen: true, rec: metadataRecord{at: now.Add(-time.Second), generation: 1, counted: "earlier-uid"},
			ds: counted("", 1), due: true},
		{name: "failed a minute ago: waits for the retry", seen: true, rec: metadataRecord{retryAt: now.Add(4 * time.Minute)},
			ds: counted("", 1), due: false, next: now.Add(4 * time.Minute)},
		{name: "counted before a restart: one interval from now, no storm", ds: counted("1.00GiB", 1), refresh: time.Hour,
			due: false, next: now.Add(time.Hour)},
		{name: "counted before a restart, no refresh", ds: counted("1.00GiB", 1), due: false},
		{name: "refresh not yet", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1), refresh: 2 * time.Hour,
			due: false, next: now.Add(time.Hour)},
		{name: "refresh passed", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1), refresh: time.Hour, due: true},
		{name: "no refresh: counted once", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1), due: false},
		{name: "the spec changed", seen: true, rec: hourAgo, ds: counted("1.00GiB", 2), due: true},
		{name: "a loadMetadata DataLoad completed since", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1),
			loads: []datav1alpha1.DataLoad{load("d", true, now.Add(-time.Minute))}, due: true},
		{name: "a Once DataLoad completed since (its Complete condition)", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1),
			loads: []datav1alpha1.DataLoad{onceDone("d", now.Add(-time.Minute))}, due: true},
		{name: "a Once DataLoad that completed before the count", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1),
			loads: []datav1alpha1.DataLoad{onceDone("d", now.Add(-2*time.Hour))}, due: false},
		{name: "it completed before the count", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1),
			loads: []datav1alpha1.DataLoad{load("d", true, now.Add(-2*time.Hour))}, due: false},
		{name: "a DataLoad without loadMetadata", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1),
			loads: []datav1alpha1.DataLoad{load("d", false, now.Add(-time.Minute))}, due: false},
		{name: "another Dataset's DataLoad", seen: true, rec: hourAgo, ds: counted("1.00GiB", 1),
			loads: []datav1alpha1.DataLoad{load("other", true, now.Add(-time.Minute))}, due: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			due, next := metadataDue(now, c.rec, c.seen, c.ds, c.loads, c.refresh)
			if due != c.due || !next.Equal(c.next) {
				t.Errorf("metadataDue = %v, %v; want %v, %v", due, next, c.due, c.next)
			}
		})
	}
}

// TestUFSTotalGivesThePercentage: the cached percentage is computed from
// the ufsTotal string the controller wrote (engines.FormatUFSTotal, two
// decimals), so that string must read back within a fraction of a percent
// of the bytes counted; Calculating and "" give no percentage.
func TestUFSTotalGivesThePercentage(t *testing.T) {
	bytesOf := func(s string) int64 {
		q, _ := engines.ParseSize(s)
		return q.Value()
	}
	for _, n := range []int64{1, 1000, 1 << 20, 1<<30 + 1<<29 + 12345, 154262709011, 5 << 40} {
		back := bytesOf(engines.FormatUFSTotal(n))
		if diff := float64(back-n) / float64(n); diff > 0.005 || diff < -0.005 {
			t.Errorf("ParseSize(FormatUFSTotal(%d)) = %d, off by %.3f%%", n, back, diff*100)
		}
	}
	states := engines.CacheStates(engines.CacheCounters{CachedBytes: 3 << 29}, 0, bytesOf(engines.FormatUFSTotal(6<<30)))
	if got := states[datav1alpha1.CachedPercentage]; got != "25.0%" {
		t.Errorf("1.5GiB cached of 6.00GiB: cachedPercentage %q, want 25.0%%", got)
	}
	for _, total := range []string{"", Calculating} {
		if got := bytesOf(total); got != 0 {
			t.Errorf("ParseSize(%q) = %d, want 0 (no percentage)", total, got)
		}
	}
}

package cacheruntime

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/sluice-data/sluice/engines"
)

// TestUsageReadsAreOneAtATimeAndThrottled: a Dataset's usage pages are
// read by at most one read at a time, at most once per interval, and a
// result is taken once.
func TestUsageReadsAreOneAtATimeAndThrottled(t *testing.T) {
	var u usageReads
	key := types.NamespacedName{Namespace: "ns", Name: "d"}
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	if !u.begin(key, t0, time.Minute) {
		t.Fatal("the first read does not start")
	}
	if u.begin(key, t0.Add(2*time.Minute), time.Minute) {
		t.Error("a second read starts while the first runs")
	}
	if _, ok := u.take(key); ok {
		t.Error("a result before the read ended")
	}
	u.done(key, &engines.UFSUsage{Bytes: 1, Files: 2})
	if u.begin(key, t0.Add(30*time.Second), time.Minute) {
		t.Error("a read starts within the interval")
	}
	if got, ok := u.take(key); !ok || got != (engines.UFSUsage{Bytes: 1, Files: 2}) {
		t.Errorf("take = %+v, %v", got, ok)
	}
	if _, ok := u.take(key); ok {
		t.Error("a result taken twice")
	}
	if !u.begin(key, t0.Add(time.Minute), time.Minute) {
		t.Error("no read once the interval passed")
	}
	u.done(key, nil)
	if _, ok := u.take(key); ok {
		t.Error("a read that found nothing left a result")
	}
}

package engines

import (
	"math"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		-1: "0B", 0: "0B", 1023: "1023B", 1024: "1KiB", 1536: "1.5KiB", 512 << 20: "512MiB",
		3 << 29: "1.5GiB", 1<<30 - 1: "1023.9MiB", 2 << 40: "2TiB", math.MaxInt64: "8EiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCacheStates(t *testing.T) {
	c := CacheCounters{CachedBytes: 3 << 29, Hits: 85, Misses: 15, HitBytes: 3 << 30, MissBytes: 1 << 30}
	got := CacheStates(c, 4<<30, 6<<30)
	want := datav1alpha1.CacheStateList{
		datav1alpha1.Cached: "1.5GiB", datav1alpha1.CacheCapacity: "4GiB", datav1alpha1.CachedPercentage: "25.0%",
		datav1alpha1.CacheHitRatio: "85.0%", datav1alpha1.CacheThroughputRatio: "75.0%",
	}
	if len(got) != len(want) {
		t.Fatalf("CacheStates = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}

	// Nothing read yet, sizes unknown: zero ratios, no capacity or percentage.
	empty := CacheStates(CacheCounters{}, 0, 0)
	if empty[datav1alpha1.CacheHitRatio] != "0.0%" || empty[datav1alpha1.Cached] != "0B" {
		t.Errorf("empty CacheStates = %v", empty)
	}
	if _, ok := empty[datav1alpha1.CacheCapacity]; ok {
		t.Errorf("unknown capacity reported: %v", empty)
	}
	if _, ok := empty[datav1alpha1.CachedPercentage]; ok {
		t.Errorf("unknown dataset size gave a percentage: %v", empty)
	}
	// A cache holding more than the dataset (stale blocks) caps at 100%.
	if p := CacheStates(CacheCounters{CachedBytes: 10}, 0, 5)[datav1alpha1.CachedPercentage]; p != "100.0%" {
		t.Errorf("over-full cache percentage = %q, want 100.0%%", p)
	}
}

func TestCacheCountersAdd(t *testing.T) {
	a := CacheCounters{CachedBytes: 1, Hits: 2, Misses: 3, HitBytes: 4, MissBytes: 5}
	if got := a.Add(a); got != (CacheCounters{2, 4, 6, 8, 10}) {
		t.Errorf("Add = %+v", got)
	}
}

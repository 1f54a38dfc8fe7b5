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
	// An engine that does not tell local from remote hits (JuiceFS) gets
	// no local or remote ratios, as in Fluid.
	for _, k := range []datav1alpha1.CacheStateName{datav1alpha1.LocalHitRatio, datav1alpha1.RemoteHitRatio, datav1alpha1.LocalThroughputRatio, datav1alpha1.RemoteThroughputRatio} {
		if v, ok := got[k]; ok {
			t.Errorf("%s = %q for counters without local and remote hits", k, v)
		}
	}
	// A cache holding more than the dataset (stale blocks) caps at 100%.
	if p := CacheStates(CacheCounters{CachedBytes: 10}, 0, 5)[datav1alpha1.CachedPercentage]; p != "100.0%" {
		t.Errorf("over-full cache percentage = %q, want 100.0%%", p)
	}
}

// TestCacheStatesSplitsLocalAndRemoteHits: with counters that tell them
// apart, each of local and remote hits is a share of all reads, in Fluid's
// keys and format ("%.1f%%"), and the two add up to the cache's ratio.
func TestCacheStatesSplitsLocalAndRemoteHits(t *testing.T) {
	c := CacheCounters{Hits: 85, Misses: 15, RemoteHits: 25, HitBytes: 3 << 30, MissBytes: 1 << 30, RemoteHitBytes: 1 << 29, Remote: true}
	got := CacheStates(c, 0, 0)
	want := datav1alpha1.CacheStateList{
		datav1alpha1.Cached:        "0B",
		datav1alpha1.CacheHitRatio: "85.0%", datav1alpha1.LocalHitRatio: "60.0%", datav1alpha1.RemoteHitRatio: "25.0%",
		datav1alpha1.CacheThroughputRatio: "75.0%", datav1alpha1.LocalThroughputRatio: "62.5%", datav1alpha1.RemoteThroughputRatio: "12.5%",
	}
	if len(got) != len(want) {
		t.Fatalf("CacheStates = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Nothing read yet: every ratio is 0.0%, as Fluid writes it.
	for k, v := range CacheStates(CacheCounters{Remote: true}, 0, 0) {
		if k != datav1alpha1.Cached && v != "0.0%" {
			t.Errorf("no reads: %s = %q, want 0.0%%", k, v)
		}
	}
}

func TestCheckedRefusesMoreRemoteThanAllHits(t *testing.T) {
	for _, c := range []CacheCounters{{Hits: 1, RemoteHits: 2, Remote: true}, {HitBytes: 1, RemoteHitBytes: 2, Remote: true}, {RemoteHits: -1}} {
		if _, err := Checked(c, "page"); err == nil {
			t.Errorf("Checked(%+v) = nil error", c)
		}
	}
}

func TestCacheCountersAdd(t *testing.T) {
	a := CacheCounters{CachedBytes: 1, Hits: 2, Misses: 3, HitBytes: 4, MissBytes: 5, RemoteHits: 1, RemoteHitBytes: 2}
	if got := a.Add(a); got != (CacheCounters{CachedBytes: 2, Hits: 4, Misses: 6, HitBytes: 8, MissBytes: 10, RemoteHits: 2, RemoteHitBytes: 4}) {
		t.Errorf("Add = %+v", got)
	}
	if !a.Add(CacheCounters{Remote: true}).Remote || !(CacheCounters{Remote: true}).Max(a).Remote {
		t.Error("a sum or maximum with counters telling remote hits does not tell them")
	}
}

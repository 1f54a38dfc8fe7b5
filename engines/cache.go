package engines

import (
	"fmt"
	"math"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// CacheCounters are an engine's cache figures as read from one FUSE or
// worker process: a gauge of cached bytes and cumulative read counters.
type CacheCounters struct {
	CachedBytes float64
	Hits        float64
	Misses      float64
	HitBytes    float64
	MissBytes   float64
	// RemoteHits and RemoteHitBytes are the part of Hits and HitBytes
	// another node's cache served over the network; the rest the reader's
	// node served. They mean something only with Remote.
	RemoteHits     float64
	RemoteHitBytes float64
	// Remote: the engine's metrics tell local from remote hits, and the
	// cache states report them (localHitRatio and the rest), as Fluid
	// reports them for engines that tell them apart.
	Remote bool
}

// Checked returns c, or an error naming the first figure that is not a
// finite number at least 0 (what names the page, e.g. "JuiceFS metrics"):
// such a figure (a NaN or infinite sample, a negative counter, a sum that
// overflowed) is no cache figure, and reported it would show a negative
// hit ratio or an arbitrary size.
func Checked(c CacheCounters, what string) (CacheCounters, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"cached bytes", c.CachedBytes}, {"hits", c.Hits}, {"misses", c.Misses}, {"hit bytes", c.HitBytes}, {"miss bytes", c.MissBytes},
		{"remote hits", c.RemoteHits}, {"remote hit bytes", c.RemoteHitBytes}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return CacheCounters{}, fmt.Errorf("%s: %s is %v, not a finite number at least 0", what, f.name, f.v)
		}
	}
	if c.RemoteHits > c.Hits || c.RemoteHitBytes > c.HitBytes {
		return CacheCounters{}, fmt.Errorf("%s: more remote hits (%v, %v bytes) than hits (%v, %v bytes)", what, c.RemoteHits, c.RemoteHitBytes, c.Hits, c.HitBytes)
	}
	return c, nil
}

// Add sums two processes' counters.
func (c CacheCounters) Add(o CacheCounters) CacheCounters {
	return CacheCounters{
		CachedBytes: c.CachedBytes + o.CachedBytes, Hits: c.Hits + o.Hits, Misses: c.Misses + o.Misses,
		HitBytes: c.HitBytes + o.HitBytes, MissBytes: c.MissBytes + o.MissBytes,
		RemoteHits: c.RemoteHits + o.RemoteHits, RemoteHitBytes: c.RemoteHitBytes + o.RemoteHitBytes, Remote: c.Remote || o.Remote,
	}
}

// CacheStates renders counters as a runtime's status.cacheStates, the
// figures `kubectl get dataset` shows. capacity is the total cache size and
// datasetBytes the dataset's size in the under storage; either may be 0 when
// unknown, and then cachedPercentage is left out. Ratios with no reads are
// "0.0%". With c.Remote, the hit and throughput ratios are also split into
// local and remote ones, each a share of all reads (local plus remote is
// the cache's), as Fluid reports them: localHitRatio, remoteHitRatio,
// localThroughputRatio, remoteThroughputRatio.
func CacheStates(c CacheCounters, capacity, datasetBytes int64) datav1alpha1.CacheStateList {
	s := datav1alpha1.CacheStateList{
		datav1alpha1.Cached:               FormatBytes(int64(c.CachedBytes)),
		datav1alpha1.CacheHitRatio:        percent(c.Hits, c.Hits+c.Misses),
		datav1alpha1.CacheThroughputRatio: percent(c.HitBytes, c.HitBytes+c.MissBytes),
	}
	if c.Remote {
		s[datav1alpha1.LocalHitRatio] = percent(c.Hits-c.RemoteHits, c.Hits+c.Misses)
		s[datav1alpha1.RemoteHitRatio] = percent(c.RemoteHits, c.Hits+c.Misses)
		s[datav1alpha1.LocalThroughputRatio] = percent(c.HitBytes-c.RemoteHitBytes, c.HitBytes+c.MissBytes)
		s[datav1alpha1.RemoteThroughputRatio] = percent(c.RemoteHitBytes, c.HitBytes+c.MissBytes)
	}
	if capacity > 0 {
		s[datav1alpha1.CacheCapacity] = FormatBytes(capacity)
	}
	if datasetBytes > 0 {
		s[datav1alpha1.CachedPercentage] = percent(math.Min(c.CachedBytes, float64(datasetBytes)), float64(datasetBytes))
	}
	return s
}

func percent(part, whole float64) string {
	if whole <= 0 || math.IsNaN(part) || math.IsNaN(whole) {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%%", part*100/whole)
}

// FormatBytes writes n in binary units with at most one decimal, as
// Kubernetes users read sizes: "0B", "512KiB", "1.5GiB".
func FormatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", max(n, 0))
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f%s", v, units[i])
	}
	return fmt.Sprintf("%.1f%s", math.Floor(v*10)/10, units[i])
}

// Max is the larger of each of two processes' counters.
func (c CacheCounters) Max(o CacheCounters) CacheCounters {
	return CacheCounters{
		CachedBytes: max(c.CachedBytes, o.CachedBytes), Hits: max(c.Hits, o.Hits), Misses: max(c.Misses, o.Misses),
		HitBytes: max(c.HitBytes, o.HitBytes), MissBytes: max(c.MissBytes, o.MissBytes),
		RemoteHits: max(c.RemoteHits, o.RemoteHits), RemoteHitBytes: max(c.RemoteHitBytes, o.RemoteHitBytes), Remote: c.Remote || o.Remote,
	}
}

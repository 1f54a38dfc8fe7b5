package alluxio

import (
	"fmt"
	"io"

	"github.com/sluice-data/sluice/engines"
)

// The cluster metrics the leading master aggregates from worker and client
// heartbeats. Alluxio's Prometheus servlet exports its Dropwizard registry:
// "Cluster.BytesReadLocal" becomes Cluster_BytesReadLocal, and Dropwizard
// counters come out as gauges without a _total suffix.
const (
	// metricCapacityUsed is the bytes cached on all tiers of all workers.
	metricCapacityUsed = "Cluster_CapacityUsed"
	// metricBytesReadLocal counts bytes clients read short-circuit from a
	// worker on their node; metricBytesReadDomain over a domain socket.
	metricBytesReadLocal  = "Cluster_BytesReadLocal"
	metricBytesReadDomain = "Cluster_BytesReadDomain"
	// metricBytesReadRemote counts bytes workers served over the network,
	// from their storage or fetched from the under storage on a miss.
	metricBytesReadRemote = "Cluster_BytesReadRemote"
	// metricBytesReadUfsAll counts bytes workers read from under storages.
	metricBytesReadUfsAll = "Cluster_BytesReadUfsAll"
)

// ParseMetrics reads the leading master's /metrics/prometheus/ page (text
// exposition format) into cache counters. A page that does not parse is an
// error; a page without the cluster metrics (a standby master, or a master
// no worker has reported to yet) gives zero counters and no error.
//
//   - CachedBytes is Cluster_CapacityUsed.
//   - MissBytes is Cluster_BytesReadUfsAll.
//   - HitBytes are the bytes clients read that did not come from an under
//     storage: short-circuit and domain-socket reads, plus remote reads less
//     the under-storage bytes, which Alluxio counts inside remote reads.
//     Fluid adds local and remote reads as they are, which reads a cold
//     scan as a 50% hit ratio.
//   - RemoteHitBytes are the remote reads less the under-storage bytes,
//     the rest of HitBytes local (short-circuit and domain-socket) reads.
//   - Hits, Misses and RemoteHits are the same byte figures: Alluxio 2.x
//     exports no per-read or per-block hit counts, only bytes, and Fluid's
//     hit ratios for Alluxio (cacheHitRatio, localHitRatio,
//     remoteHitRatio) are byte ratios too.
func ParseMetrics(r io.Reader) (engines.CacheCounters, error) {
	var c engines.CacheCounters
	families, err := engines.ParseFamilies(r)
	if err != nil {
		return c, fmt.Errorf("parsing Alluxio master metrics: %w", err)
	}
	v := func(name string) float64 { return engines.SumFamily(families[name]) }
	c.CachedBytes = v(metricCapacityUsed)
	c.MissBytes = v(metricBytesReadUfsAll)
	c.RemoteHitBytes = max(v(metricBytesReadRemote)-c.MissBytes, 0)
	c.HitBytes = v(metricBytesReadLocal) + v(metricBytesReadDomain) + c.RemoteHitBytes
	c.Hits, c.Misses, c.RemoteHits, c.Remote = c.HitBytes, c.MissBytes, c.RemoteHitBytes, true
	return engines.Checked(c, "Alluxio master metrics")
}

package jindo

import (
	"fmt"
	"io"
	"strings"

	"github.com/sluice-data/sluice/engines"
)

// The namespace service's cluster gauges, as JindoFSx 4.x documents them
// (aliyun/alibabacloud-jindodata; no JindoCache 6.x list is published):
// cluster-wide figures, all typed gauge and without labels; the *_total read
// families are cumulative despite the type.
const (
	// nsPrefix starts every namespace-service metric.
	nsPrefix = "jindofsx_ns_"
	// The cache capacity and its used part, on disk and in memory.
	metricDiskCap     = nsPrefix + "total_disk_cap"
	metricUsedDiskCap = nsPrefix + "total_used_disk_cap"
	metricMemCap      = nsPrefix + "total_mem_cap"
	metricUsedMemCap  = nsPrefix + "total_used_mem_cap"
	// Reads by source: "local" and "remote" are served from workers' cache
	// (on the reader's node or over the network), "backend" from the under
	// storage, that is cache misses. Each source has a <source>_read_bytes_total
	// and a <source>_readop_num_total family.
	sourceLocal   = "local"
	sourceRemote  = "remote"
	sourceBackend = "backend"
)

// capacityGauges are the families a namespace service's page always has.
var capacityGauges = []string{metricDiskCap, metricUsedDiskCap, metricMemCap, metricUsedMemCap}

func readBytes(source string) string { return nsPrefix + source + "_read_bytes_total" }

func readOps(source string) string { return nsPrefix + source + "_readop_num_total" }

// ParseMetrics reads the master's Prometheus page (text exposition format)
// into cache counters:
//
//   - CachedBytes is the used disk plus used memory capacity;
//   - HitBytes and Hits are the local plus remote read bytes and read
//     operations, MissBytes and Misses the backend ones, as Fluid's Grafana
//     dashboard computes the hit ratio (slicelet reads are left out there
//     and here);
//   - RemoteHitBytes and RemoteHits are the remote ones, so the cache
//     states split hits into local and remote as Fluid does for Alluxio
//     (Fluid reports no hit ratios for Jindo).
//
// A missing family counts as 0, but a page with none of the capacity gauges
// is an error: it is not a namespace service's page (an HTML page, another
// path, renamed metrics), and reporting it as an empty cache would mislead.
func ParseMetrics(r io.Reader) (engines.CacheCounters, error) {
	var c engines.CacheCounters
	families, err := engines.ParseFamilies(r)
	if err != nil {
		return c, fmt.Errorf("parsing JindoCache master metrics: %w", err)
	}
	found := false
	for _, name := range capacityGauges {
		_, ok := families[name]
		found = found || ok
	}
	if !found {
		return c, fmt.Errorf("parsing JindoCache master metrics: the page has none of %s", strings.Join(capacityGauges, ", "))
	}
	v := func(name string) float64 { return engines.SumFamily(families[name]) }
	c.CachedBytes = v(metricUsedDiskCap) + v(metricUsedMemCap)
	c.HitBytes = v(readBytes(sourceLocal)) + v(readBytes(sourceRemote))
	c.MissBytes = v(readBytes(sourceBackend))
	c.Hits = v(readOps(sourceLocal)) + v(readOps(sourceRemote))
	c.Misses = v(readOps(sourceBackend))
	c.RemoteHitBytes, c.RemoteHits, c.Remote = v(readBytes(sourceRemote)), v(readOps(sourceRemote)), true
	return engines.Checked(c, "JindoCache master metrics")
}

package juicefs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/engines"
)

// The cache metrics a JuiceFS client exports, without a suffix. Counters
// carry no "_total" in the plain text format and in .stats; a scraper that
// negotiates OpenMetrics sees one, so both spellings are accepted.
const (
	metricCachedBytes = "juicefs_blockcache_bytes"
	metricHits        = "juicefs_blockcache_hits"
	metricMisses      = "juicefs_blockcache_miss"
	metricHitBytes    = "juicefs_blockcache_hit_bytes"
	metricMissBytes   = "juicefs_blockcache_miss_bytes"
)

// field is where a metric's value goes in CacheCounters.
func field(c *engines.CacheCounters, name string) *float64 {
	switch strings.TrimSuffix(name, "_total") {
	case metricCachedBytes:
		return &c.CachedBytes
	case metricHits:
		return &c.Hits
	case metricMisses:
		return &c.Misses
	case metricHitBytes:
		return &c.HitBytes
	case metricMissBytes:
		return &c.MissBytes
	}
	return nil
}

// ParseMetrics reads a JuiceFS client's Prometheus /metrics page (text
// exposition format) into cache counters, summing labelled series.
func ParseMetrics(r io.Reader) (engines.CacheCounters, error) {
	var c engines.CacheCounters
	families, err := engines.ParseFamilies(r)
	if err != nil {
		return c, fmt.Errorf("parsing JuiceFS metrics: %w", err)
	}
	for name, mf := range families {
		dst := field(&c, name)
		if dst == nil {
			continue
		}
		for _, m := range mf.GetMetric() {
			*dst += engines.SampleValue(m)
		}
	}
	return engines.Checked(c, "JuiceFS metrics")
}

// ParseStats reads the .stats file at the root of a JuiceFS mount (what
// Fluid reads): one "name value" line per metric; the enterprise edition
// writes "name: value". Unknown metrics are skipped; a known one whose value
// is not a number is an error naming the line.
func ParseStats(r io.Reader) (engines.CacheCounters, error) {
	var c engines.CacheCounters
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		name, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		name = strings.TrimSuffix(name, ":")
		dst := field(&c, name)
		if !ok || dst == nil {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return c, fmt.Errorf("JuiceFS .stats line %d: %s has value %q, not a number", line, name, value)
		}
		*dst += v
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("reading JuiceFS .stats: %w", err)
	}
	return engines.Checked(c, "JuiceFS .stats")
}

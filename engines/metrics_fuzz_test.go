package engines_test

import (
	"bytes"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
)

// pageParsers are every parser of an engine's metrics page (what a
// runtime's pods serve, so what a tenant's pod may serve too).
var pageParsers = map[string]func(io.Reader) (engines.CacheCounters, error){
	"alluxio":        alluxio.ParseMetrics,
	"jindo":          jindo.ParseMetrics,
	"juicefs":        juicefs.ParseMetrics,
	"juicefs .stats": juicefs.ParseStats,
}

// FuzzParseMetrics feeds arbitrary pages to every engine's metrics parser.
// A parser never panics; it fails, or returns counters that are finite
// and not negative, which render as cache states whose ratios and
// percentage lie between 0 and 100% and whose sizes are sizes.
func FuzzParseMetrics(f *testing.F) {
	for _, file := range []string{"alluxio/testdata/master-metrics.prom", "jindo/testdata/master-metrics.prom"} {
		page, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(page)
	}
	for _, page := range []string{
		"# TYPE juicefs_blockcache_bytes gauge\njuicefs_blockcache_bytes{vol=\"a\"} 1024\njuicefs_blockcache_hits 3\njuicefs_blockcache_miss 1\n",
		"juicefs_blockcache_bytes NaN\n",
		"juicefs_blockcache_hits -1\njuicefs_blockcache_miss 2\n",
		"juicefs_blockcache_bytes 1e308\njuicefs_blockcache_bytes{a=\"b\"} 1e308\n",
		"juicefs_blockcache_hit_bytes: +Inf\n",
		"Cluster_CapacityUsed 10\nCluster_BytesReadRemote NaN\n",
		"jindofsx_ns_used_disk_cap 5\njindofsx_ns_local_read_bytes_total -3\n",
	} {
		f.Add([]byte(page))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		for name, parse := range pageParsers {
			c, err := parse(bytes.NewReader(page))
			if err != nil {
				continue
			}
			for _, v := range []float64{c.CachedBytes, c.Hits, c.Misses, c.HitBytes, c.MissBytes} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("%s: %q parsed to %+v", name, page, c)
				}
			}
			states := engines.CacheStates(c, 1<<30, 1<<20)
			for _, k := range []datav1alpha1.CacheStateName{datav1alpha1.CacheHitRatio, datav1alpha1.CacheThroughputRatio, datav1alpha1.CachedPercentage} {
				p, err := strconv.ParseFloat(strings.TrimSuffix(states[k], "%"), 64)
				if err != nil || p < 0 || p > 100 {
					t.Fatalf("%s: %q parsed to %+v, whose %s is %q", name, page, c, k, states[k])
				}
			}
			if cached := states[datav1alpha1.Cached]; strings.HasPrefix(cached, "-") || cached == "" {
				t.Fatalf("%s: %q parsed to %+v, whose cached size is %q", name, page, c, cached)
			}
		}
	})
}

package juicefs

import (
	"strings"
	"testing"

	"github.com/sluice-data/sluice/engines"
)

var wantCounters = engines.CacheCounters{CachedBytes: 1073741824, Hits: 850, Misses: 150, HitBytes: 3221225472, MissBytes: 1073741824}

func TestParseMetrics(t *testing.T) {
	for name, text := range map[string]string{
		"prometheus text": `# HELP juicefs_blockcache_bytes number of cached bytes
# TYPE juicefs_blockcache_bytes gauge
juicefs_blockcache_bytes{mp="/runtime-mnt/juicefs/a/b/juicefs-fuse",vol_name="v"} 1.073741824e+09
# HELP juicefs_blockcache_hits read from cached block
# TYPE juicefs_blockcache_hits counter
juicefs_blockcache_hits{mp="/m",vol_name="v"} 850
# TYPE juicefs_blockcache_miss counter
juicefs_blockcache_miss{mp="/m",vol_name="v"} 150
# TYPE juicefs_blockcache_hit_bytes counter
juicefs_blockcache_hit_bytes{mp="/m",vol_name="v"} 3221225472
# TYPE juicefs_blockcache_miss_bytes counter
juicefs_blockcache_miss_bytes{mp="/m",vol_name="v"} 1073741824
# TYPE juicefs_blockcache_read_hist_seconds histogram
juicefs_blockcache_read_hist_seconds_bucket{le="+Inf"} 3
juicefs_blockcache_read_hist_seconds_sum 0.1
juicefs_blockcache_read_hist_seconds_count 3
# TYPE go_goroutines gauge
go_goroutines 42
`,
		"_total counters, series split by label": `# TYPE juicefs_blockcache_bytes gauge
juicefs_blockcache_bytes 1073741824
# TYPE juicefs_blockcache_hits_total counter
juicefs_blockcache_hits_total{node="a"} 800
juicefs_blockcache_hits_total{node="b"} 50
juicefs_blockcache_miss_total 150
juicefs_blockcache_hit_bytes_total 3221225472
juicefs_blockcache_miss_bytes_total 1073741824
`,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseMetrics(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			if got != wantCounters {
				t.Errorf("ParseMetrics = %+v, want %+v", got, wantCounters)
			}
		})
	}
	if _, err := ParseMetrics(strings.NewReader("juicefs_blockcache_hits{ 3\n")); err == nil || !strings.Contains(err.Error(), "JuiceFS metrics") {
		t.Errorf("malformed page: error %v, want a parse error", err)
	}
}

func TestParseStats(t *testing.T) {
	for name, text := range map[string]string{
		"community": `juicefs_uptime 120.5
juicefs_blockcache_blocks 12
juicefs_blockcache_bytes 1073741824
juicefs_blockcache_hits 850
juicefs_blockcache_miss 150
juicefs_blockcache_hit_bytes 3221225472
juicefs_blockcache_miss_bytes 1073741824
juicefs_blockcache_read_hist_seconds_total 3
juicefs_fuse_ops_durations_histogram_seconds_total 10
`,
		"colon separated": "juicefs_blockcache_bytes: 1073741824\njuicefs_blockcache_hits: 850\njuicefs_blockcache_miss: 150\n" +
			"juicefs_blockcache_hit_bytes: 3221225472\njuicefs_blockcache_miss_bytes: 1073741824\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseStats(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			if got != wantCounters {
				t.Errorf("ParseStats = %+v, want %+v", got, wantCounters)
			}
		})
	}
	_, err := ParseStats(strings.NewReader("juicefs_uptime 1\njuicefs_blockcache_hits many\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "juicefs_blockcache_hits") {
		t.Errorf("bad value: error %v, want one naming line 2 and the metric", err)
	}
}

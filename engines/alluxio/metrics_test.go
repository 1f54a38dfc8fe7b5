package alluxio

import (
	"io"
	"os"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

const gib = 1 << 30

func TestParseMetricsReadsTheMastersPage(t *testing.T) {
	f, err := os.Open("testdata/master-metrics.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := parse(t, f)
	if err != nil {
		t.Fatal(err)
	}
	// 5GiB cached; 15GiB read remotely, 5GiB of which workers fetched from
	// S3. Hits are bytes, as in Fluid.
	want := engines.CacheCounters{CachedBytes: 5 * gib, HitBytes: 10 * gib, MissBytes: 5 * gib, RemoteHitBytes: 10 * gib,
		Hits: 10 * gib, Misses: 5 * gib, RemoteHits: 10 * gib, Remote: true}
	if got != want {
		t.Errorf("ParseMetrics = %+v, want %+v", got, want)
	}
	// The keys and formats of Fluid's cacheStates for Alluxio: every read
	// hit another node's cache or missed, none was local.
	states := engines.CacheStates(got, 0, 0)
	for k, v := range map[datav1alpha1.CacheStateName]string{
		datav1alpha1.CacheHitRatio: "66.7%", datav1alpha1.LocalHitRatio: "0.0%", datav1alpha1.RemoteHitRatio: "66.7%",
		datav1alpha1.CacheThroughputRatio: "66.7%", datav1alpha1.LocalThroughputRatio: "0.0%", datav1alpha1.RemoteThroughputRatio: "66.7%",
	} {
		if states[k] != v {
			t.Errorf("%s = %q, want %q", k, states[k], v)
		}
	}
}

func TestParseMetricsCountsLocalReadsAsHits(t *testing.T) {
	page := `# TYPE Cluster_BytesReadLocal gauge
Cluster_BytesReadLocal 1.073741824E9
# TYPE Cluster_BytesReadDomain gauge
Cluster_BytesReadDomain 1.073741824E9
# TYPE Cluster_BytesReadRemote gauge
Cluster_BytesReadRemote 2.147483648E9
# TYPE Cluster_BytesReadUfsAll gauge
Cluster_BytesReadUfsAll 3.221225472E9
`
	got, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	// Asynchronous caching reads the under storage beyond what remote
	// readers asked for: remote hits never go below zero.
	if want := (engines.CacheCounters{HitBytes: 2 * gib, MissBytes: 3 * gib, Hits: 2 * gib, Misses: 3 * gib, Remote: true}); got != want {
		t.Errorf("ParseMetrics = %+v, want %+v", got, want)
	}
	states := engines.CacheStates(got, 0, 0)
	if states[datav1alpha1.LocalHitRatio] != "40.0%" || states[datav1alpha1.RemoteHitRatio] != "0.0%" || states[datav1alpha1.CacheHitRatio] != "40.0%" {
		t.Errorf("cache states %v, want 40.0%% of reads local hits and none remote", states)
	}
}

// A standby master, or a leader no worker has reported to, has no cluster
// metrics: that is zero, not an error.
func TestParseMetricsWithoutClusterMetricsIsZero(t *testing.T) {
	for name, page := range map[string]string{
		"empty":        "",
		"process only": "# TYPE Master_TotalPaths gauge\nMaster_TotalPaths 1.0\n# TYPE Master_GetFileInfoOps gauge\nMaster_GetFileInfoOps 3.0\n",
	} {
		got, err := ParseMetrics(strings.NewReader(page))
		if err != nil || got != (engines.CacheCounters{Remote: true}) {
			t.Errorf("%s: ParseMetrics = %+v, %v; want zero counters and no error", name, got, err)
		}
	}
}

func TestParseMetricsRejectsAMalformedPage(t *testing.T) {
	for name, page := range map[string]string{
		"broken labels": "Cluster_CapacityUsed{ 3\n",
		"not a number":  "# TYPE Cluster_CapacityUsed gauge\nCluster_CapacityUsed lots\n",
		"html":          "<html><body>Alluxio Master is standby</body></html>\n",
	} {
		if _, err := ParseMetrics(strings.NewReader(page)); err == nil || !strings.Contains(err.Error(), "Alluxio master metrics") {
			t.Errorf("%s: error %v, want a parse error", name, err)
		}
	}
}

// parse reads a page as the controller does, through the engine's
// MetricsSource.
func parse(t *testing.T, r io.Reader) (engines.CacheCounters, error) {
	t.Helper()
	src, ok := Engine{}.CacheMetrics(&datav1alpha1.AlluxioRuntime{})
	if !ok {
		t.Fatal("the Alluxio engine reports cache metrics")
	}
	return src.Parse(r)
}

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
	// 5GiB cached; 15GiB read remotely, 5GiB of which workers fetched from S3.
	want := engines.CacheCounters{CachedBytes: 5 * gib, HitBytes: 10 * gib, MissBytes: 5 * gib}
	if got != want {
		t.Errorf("ParseMetrics = %+v, want %+v", got, want)
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
	if want := (engines.CacheCounters{HitBytes: 2 * gib, MissBytes: 3 * gib}); got != want {
		t.Errorf("ParseMetrics = %+v, want %+v", got, want)
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
		if err != nil || got != (engines.CacheCounters{}) {
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

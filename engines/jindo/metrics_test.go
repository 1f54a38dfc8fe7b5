package jindo

import (
	"io"
	"os"
	"strings"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

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
	// Used disk plus used memory; remote plus local reads hit, backend
	// reads missed. The documented page has no readop counts.
	want := engines.CacheCounters{CachedBytes: 153423446016, HitBytes: 112108045498, MissBytes: 166703347021,
		RemoteHitBytes: 112108045498, Remote: true}
	if got != want {
		t.Errorf("ParseMetrics = %+v, want %+v", got, want)
	}
	// Every byte served from cache came over the network: 112108045498 of
	// 278811392519 bytes read, 40.2%.
	states := engines.CacheStates(got, 0, 0)
	for k, v := range map[datav1alpha1.CacheStateName]string{
		datav1alpha1.CacheThroughputRatio: "40.2%", datav1alpha1.LocalThroughputRatio: "0.0%", datav1alpha1.RemoteThroughputRatio: "40.2%",
	} {
		if states[k] != v {
			t.Errorf("%s = %q, want %q", k, states[k], v)
		}
	}
}

// The read-operation counts and memory cache, in families the documentation
// names but shows no values of (synthetic figures), typed or not.
func TestParseMetricsCountsReadsAndMemory(t *testing.T) {
	page := `# TYPE jindofsx_ns_total_used_disk_cap gauge
jindofsx_ns_total_used_disk_cap 1000
# TYPE jindofsx_ns_total_used_mem_cap gauge
jindofsx_ns_total_used_mem_cap 24
# TYPE jindofsx_ns_local_read_bytes_total gauge
jindofsx_ns_local_read_bytes_total 300
jindofsx_ns_remote_read_bytes_total 500
jindofsx_ns_backend_read_bytes_total 200
jindofsx_ns_slicelet_read_bytes_total 7000
# TYPE jindofsx_ns_local_readop_num_total gauge
jindofsx_ns_local_readop_num_total 30
jindofsx_ns_remote_readop_num_total 55
jindofsx_ns_backend_readop_num_total 15
jindofsx_ns_slicelet_readop_num_total 700
jindofsx_ns_backend_read_bytes_total_window 99
jindofsx_ns_backend_readop_num_total_window 9
`
	got, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	want := engines.CacheCounters{CachedBytes: 1024, HitBytes: 800, MissBytes: 200, Hits: 85, Misses: 15,
		RemoteHitBytes: 500, RemoteHits: 55, Remote: true}
	if got != want {
		t.Errorf("ParseMetrics = %+v, want %+v", got, want)
	}
	states := engines.CacheStates(got, 0, 0)
	for k, v := range map[datav1alpha1.CacheStateName]string{
		datav1alpha1.CacheHitRatio: "85.0%", datav1alpha1.LocalHitRatio: "30.0%", datav1alpha1.RemoteHitRatio: "55.0%",
		datav1alpha1.CacheThroughputRatio: "80.0%", datav1alpha1.LocalThroughputRatio: "30.0%", datav1alpha1.RemoteThroughputRatio: "50.0%",
	} {
		if states[k] != v {
			t.Errorf("%s = %q, want %q", k, states[k], v)
		}
	}
}

// A capacity gauge alone is a namespace service's page: an idle cache is
// zero, not an error.
func TestParseMetricsWithOnlyACapacityIsZero(t *testing.T) {
	got, err := ParseMetrics(strings.NewReader("# TYPE jindofsx_ns_total_disk_cap gauge\njindofsx_ns_total_disk_cap 0\n"))
	if err != nil || got != (engines.CacheCounters{Remote: true}) {
		t.Errorf("ParseMetrics = %+v, %v; want zero counters and no error", got, err)
	}
}

// A page that parses but has no capacity gauge is not the master's page
// (another path, another process, renamed metrics): an error, not an empty
// cache; so is a page that does not parse.
func TestParseMetricsRejectsOtherPages(t *testing.T) {
	for name, page := range map[string]string{
		"empty":         "",
		"reads only":    "# TYPE jindofsx_ns_remote_read_bytes_total gauge\njindofsx_ns_remote_read_bytes_total 5\n",
		"other process": "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\n",
		"plain text":    "OK 1\n",
		"html":          "<html><body>404 Not Found</body></html>\n",
		"not a number":  "# TYPE jindofsx_ns_total_disk_cap gauge\njindofsx_ns_total_disk_cap lots\n",
		"json":          `{"jindofsx_ns_total_disk_cap": 1}` + "\n",
	} {
		if _, err := ParseMetrics(strings.NewReader(page)); err == nil || !strings.Contains(err.Error(), "JindoCache master metrics") {
			t.Errorf("%s: error %v, want one about the master's metrics", name, err)
		}
	}
}

// parse reads a page as the controller does, through the engine's
// MetricsSource.
func parse(t *testing.T, r io.Reader) (engines.CacheCounters, error) {
	t.Helper()
	src, ok := Engine{}.CacheMetrics(&datav1alpha1.JindoRuntime{})
	if !ok {
		t.Fatal("the Jindo engine reports cache metrics")
	}
	return src.Parse(r)
}

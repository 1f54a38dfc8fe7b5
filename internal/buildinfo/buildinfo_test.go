package buildinfo

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestCollector: one series, value 1, labelled with the component, the
// linked version, the revision and the Go version.
func TestCollector(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v1.2.3"
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(Collector("webhook")); err != nil {
		t.Fatal(err)
	}
	want := `# HELP sluice_build_info 1, labelled with the Sluice version, VCS revision and Go version of this component's build.
# TYPE sluice_build_info gauge
sluice_build_info{component="webhook",goversion="` + runtime.Version() + `",revision="` + Revision() + `",version="v1.2.3"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), MetricName); err != nil {
		t.Error(err)
	}
}

// TestVersionFallsBack: without a linked version the module's version or
// "dev" is reported, never "".
func TestVersionFallsBack(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = ""
	if Version() == "" || Revision() == "" {
		t.Errorf("Version() = %q, Revision() = %q; want neither empty", Version(), Revision())
	}
}

package jindo

import (
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// Where the namespace service serves its Prometheus page: on its RPC port,
// at a path JindoFSx renamed across releases. Newest documented first
// (JindoFSx 4.6.0), then JindoFSx 4.1.0's, then the one Fluid's Jindo
// monitoring scrapes. None is documented for JindoCache 6.x.
var metricsPaths = []string{"/jindo_metrics/prometheus", "/metrics/prometheus", "/jindometrics/prometheus"}

var (
	_ engines.CacheReporter     = Engine{}
	_ engines.ClusterReporter   = Engine{}
	_ engines.MetricsPortNamer  = Engine{}
	_ engines.MetricsPathLister = Engine{}
)

// CachePods implements engines.CacheReporter: the masters (namespace
// services), which report the whole cluster's cache. Without masters
// (spec.master.disabled) nothing is scraped.
func (Engine) CachePods(rt client.Object) map[string]string {
	return map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "jindo", "role": "jindo-master"}
}

// MetricsPath implements engines.CacheReporter: the newest documented path.
func (Engine) MetricsPath() string { return metricsPaths[0] }

// MetricsPaths implements engines.MetricsPathLister: every documented path,
// tried in turn until one serves the namespace service's page.
func (Engine) MetricsPaths() []string { return append([]string(nil), metricsPaths...) }

// MetricsPortName implements engines.MetricsPortNamer: the master's
// container port "rpc" (8101 unless spec.master.ports says otherwise), which
// serves the metrics page over HTTP besides the RPC protocol.
func (Engine) MetricsPortName() string { return "rpc" }

// ParseCache implements engines.CacheReporter.
func (Engine) ParseCache(r io.Reader) (engines.CacheCounters, error) { return ParseMetrics(r) }

// ClusterWide implements engines.ClusterReporter: each master reports the
// whole cluster; the largest figures (the leader's) win.
func (Engine) ClusterWide() bool { return true }

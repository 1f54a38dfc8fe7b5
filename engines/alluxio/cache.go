package alluxio

import (
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

var _ engines.CacheReporter = Engine{}

// CachePods implements engines.CacheReporter: the masters, whose leader
// serves the cluster-wide figures on its web port (the container port named
// "metrics"). Standby masters serve no metrics by default, so a scrape of
// them fails and the controller skips them. With spec.disablePrometheus the
// port is not named "metrics" and nothing is scraped.
func (Engine) CachePods(rt client.Object) map[string]string {
	return map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "alluxio", "role": "alluxio-master"}
}

// MetricsPath implements engines.CacheReporter: Alluxio's Prometheus
// servlet, enabled by the chart's metrics.properties.
func (Engine) MetricsPath() string { return "/metrics/prometheus/" }

// ParseCache implements engines.CacheReporter.
func (Engine) ParseCache(r io.Reader) (engines.CacheCounters, error) { return ParseMetrics(r) }

var _ engines.ClusterReporter = Engine{}

// ClusterWide implements engines.ClusterReporter: the leading master
// reports the whole cluster.
func (Engine) ClusterWide() bool { return true }

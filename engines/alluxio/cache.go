package alluxio

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// CacheMetrics implements engines.Engine: the masters, whose leader serves
// the cluster-wide figures on its web port (the container port named
// "metrics") at Alluxio's Prometheus servlet, enabled by the chart's
// metrics.properties. Standby masters serve no metrics by default, so a
// scrape of them fails and the controller skips them. With
// spec.disablePrometheus the port is not named "metrics" and nothing is
// scraped.
func (Engine) CacheMetrics(rt client.Object) (engines.MetricsSource, bool) {
	return engines.MetricsSource{
		Selector: map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "alluxio", "role": "alluxio-master"},
		PortName: "metrics", Paths: []string{"/metrics/prometheus/"},
		// The leading master reports the whole cluster.
		ClusterWide: true, Parse: ParseMetrics,
	}, true
}

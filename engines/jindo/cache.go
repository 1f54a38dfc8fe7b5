package jindo

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// Where the namespace service serves its Prometheus page: on its RPC port,
// at a path JindoFSx renamed across releases. Newest documented first
// (JindoFSx 4.6.0), then JindoFSx 4.1.0's, then the one Fluid's Jindo
// monitoring scrapes. None is documented for JindoCache 6.x.
var metricsPaths = []string{"/jindo_metrics/prometheus", "/metrics/prometheus", "/jindometrics/prometheus"}

// CacheMetrics implements engines.Engine: the masters (namespace services),
// each of which reports the whole cluster's cache (the largest figures, the
// leader's, win). They serve the page on the container port "rpc" (8101
// unless spec.master.ports says otherwise) besides the RPC protocol, at
// every documented path, tried in turn until one serves the namespace
// service's page. Without masters (spec.master.disabled) nothing is
// scraped.
func (Engine) CacheMetrics(rt client.Object) (engines.MetricsSource, bool) {
	return engines.MetricsSource{
		Selector: map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "jindo", "role": "jindo-master"},
		PortName: "rpc", Paths: append([]string(nil), metricsPaths...), ClusterWide: true, Parse: ParseMetrics,
	}, true
}

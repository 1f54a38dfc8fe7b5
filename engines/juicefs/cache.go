package juicefs

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// MetricsPort is where each FUSE client serves Prometheus metrics, on the
// container port named "metrics".
const MetricsPort = 9567

// CacheMetrics implements engines.Engine: in JuiceFS community edition
// every FUSE client keeps its own block cache, so the FUSE pods report it
// (the mean per client), at /metrics on the port named "metrics". A
// runtime with disablePrometheus publishes no metrics port: nothing is read.
func (Engine) CacheMetrics(rt client.Object) (engines.MetricsSource, bool) {
	if j, ok := rt.(*datav1alpha1.JuiceFSRuntime); ok && j.Spec.DisablePrometheus {
		return engines.MetricsSource{}, false
	}
	return engines.MetricsSource{
		Selector: map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "juicefs", "role": "juicefs-fuse"},
		PortName: "metrics", Paths: []string{"/metrics"}, Parse: ParseMetrics,
	}, true
}

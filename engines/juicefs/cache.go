package juicefs

import (
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// MetricsPort is where each FUSE client serves Prometheus metrics, on the
// container port named "metrics".
const MetricsPort = 9567

var _ engines.CacheReporter = Engine{}

// CachePods implements engines.CacheReporter: in JuiceFS community edition
// every FUSE client keeps its own block cache, so the FUSE pods report it.
func (Engine) CachePods(rt client.Object) map[string]string {
	return map[string]string{"app.kubernetes.io/instance": rt.GetName(), "app.kubernetes.io/name": "juicefs", "role": "juicefs-fuse"}
}

// MetricsPath implements engines.CacheReporter.
func (Engine) MetricsPath() string { return "/metrics" }

// ParseCache implements engines.CacheReporter.
func (Engine) ParseCache(r io.Reader) (engines.CacheCounters, error) { return ParseMetrics(r) }

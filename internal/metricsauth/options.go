package metricsauth

import (
	"crypto/tls"

	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// FlagUsage is the help text of both components' --metrics-secure flag.
const FlagUsage = "serve metrics over HTTPS (a self-signed certificate, as kube-controller-manager's) only to callers the API server authenticates and authorizes for get on /metrics"

// ServerOptions returns the metrics server's options for addr ("0"
// disables it). secure serves HTTPS with a self-signed certificate
// (HTTP/1.1, TLS 1.2 or later, as the webhook server) and authenticates
// and authorizes every request against the API server.
func ServerOptions(addr string, secure bool) metricsserver.Options {
	o := metricsserver.Options{BindAddress: addr}
	if secure {
		o.SecureServing, o.FilterProvider = true, filters.WithAuthenticationAndAuthorization
		o.TLSOpts = []func(*tls.Config){HardenTLS}
	}
	return o
}

// HardenTLS serves HTTP/1.1 only (the API server calls webhooks over
// HTTP/1.1 or 2 alike, Prometheus scrapes over either; HTTP/2's
// rapid-reset and stream-exhaustion attacks are then out of reach, as
// kubebuilder's scaffolds do) and TLS 1.2 or later. The webhook server
// and the secure metrics servers use it.
func HardenTLS(c *tls.Config) {
	c.NextProtos = []string{"http/1.1"}
	c.MinVersion = tls.VersionTLS12
}

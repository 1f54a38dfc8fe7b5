// Package metricsauth gives the controller and the webhook the options of
// their Prometheus metrics server: plain HTTP, or (--metrics-secure, the
// chart's default) HTTPS on which every scrape is authenticated by a
// TokenReview and authorized by a SubjectAccessReview of `get` on the
// non-resource URL /metrics, the way controller-runtime's
// filters.WithAuthenticationAndAuthorization does it. Metrics name the
// Datasets, runtimes and admission decisions of every namespace, so a
// scraper needs a binding to the chart's metrics-reader ClusterRole.
package metricsauth

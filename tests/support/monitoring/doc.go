// Package monitoring reads the monitoring configuration Sluice ships (the
// Grafana dashboard, in the platform chart's files/grafana; the
// prometheus-adapter rules and the HPA sample, under config/) and the metric
// names their PromQL queries use, so that tests can check those names
// against what the controller and the webhook export (tests/controller,
// tests/webhook) and that the files hang together.
package monitoring

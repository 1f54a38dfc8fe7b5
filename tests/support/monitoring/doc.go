// Package monitoring reads the monitoring configuration Sluice ships under
// config/ (the Grafana dashboard, the prometheus-adapter rules, the HPA
// sample) and the metric names their PromQL queries use, so that tests can
// check those names against what the controller and the webhook export
// (tests/controller, tests/webhook) and that the files hang together.
package monitoring

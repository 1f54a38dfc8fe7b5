// Package metrics defines the webhooks' Prometheus metrics, registered with
// controller-runtime's registry so that the manager's /metrics serves them.
package metrics

// Package chartrender renders the Sluice chart (charts/sluice) as
// `helm install --dry-run` does without a cluster, for the tests that check
// what it renders (tests/chart) and those that run a component with the
// arguments it renders (tests/webhookauth).
package chartrender

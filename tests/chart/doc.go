// Package chart tests the platform chart, charts/sluice, with the Helm SDK:
// the lint action, golden renders of default and non-default values (`go test
// ./tests/chart -run Golden -update` rewrites them), the values schema, the
// chart's agreement with what controller-gen and config/ define (CRDs, the
// controller's rules, the webhook entries, the CSI plugin's rules), and an
// install into the simulated cluster (tests/support/simcluster) where the real
// kube-apiserver accepts every object and kwok runs the Pods to Ready, in both
// certificate modes: in cert-manager mode cert-manager's own controller and
// cainjector (tests/support/certmanager) issue the chart's certificates and
// inject its CA.
package chart

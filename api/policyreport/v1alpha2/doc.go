// Package v1alpha2 holds the wgpolicyk8s.io/v1alpha2 PolicyReport and
// ClusterPolicyReport kinds, the report format of the Kubernetes Policy
// working group that Kyverno, Policy Reporter and other tools read.
// `sluice policy audit` prints them and the webhook's in-cluster audit
// writes them. No Go module with these types is served by the Go module
// proxy, so this package defines the part of the published schema Sluice
// writes; its CRDs (generated from it, charts/sluice/files/policyreports)
// are shipped by the chart when audit.policyReports.crds is set.
//
// +kubebuilder:object:generate=true
// +groupName=wgpolicyk8s.io
package v1alpha2

// Package webhookaudit tests the webhook's in-cluster policy audit end to
// end: the real kube-apiserver, the webhook started with --audit-interval,
// the report CRDs the chart ships; a policy ConfigMap applied or removed
// changes the PolicyReports the webhook writes.
package webhookaudit

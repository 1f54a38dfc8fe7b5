// Package webhookcerts tests the webhook's serving certificates against a
// real kube-apiserver: `sluice webhook` runs in child processes (one per
// replica) in each certificate mode, the webhook configurations point at
// them by URL, and the API server's own calls show whether it trusts them.
// Self-managed: readiness until both configurations trust the certificate,
// two replicas agreeing on one CA, and rotation of the CA and the serving
// certificate under admission load with no failed admission. cert-manager:
// cert-manager's own controller and cainjector (tests/support/certmanager)
// issue the chart's certificate chain and inject its CA, the replica serves
// the issued certificate and reports the Certificate's readiness, Ready or
// not. Rollout: a replica told to stop drains (unready, still serving), and a
// rolling restart behind a readiness-aware balancer fails no admission.
package webhookcerts

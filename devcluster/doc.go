// Package devcluster is `sluice dev`: it starts a local control plane from
// the kube binaries in bin/, installs Sluice's CRDs and webhook
// configuration, runs the webhook and the controller in-process, and with
// --demo walks through a sample Dataset and the Pods Sluice mutates.
package devcluster

// Package devcluster is `sluice dev`: it starts the simulated cluster the
// end-to-end tests run on (internal/kubesim: kube-scheduler,
// kube-controller-manager and kwok's fake nodes, on etcd and kube-apiserver
// from bin/), installs Sluice from the platform chart rendered with dev
// values, runs the webhook and the controller in-process as the chart's
// ServiceAccounts, and with --demo plays the story of package demo. `sluice
// dev down` stops a running one or cleans up after one that crashed.
package devcluster

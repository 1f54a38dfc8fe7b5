// Package e2eops holds the end-to-end tests of data operations on the
// simulated cluster of package simcluster: Sluice's controller (with
// config/rbac's permissions) and its validating and mutating webhook run
// against a real kube-apiserver, kube-scheduler and kube-controller-manager,
// whose Job and CronJob controllers run the operations' workloads, and kwok
// plays kubelet: it starts the Job pods on fake nodes and completes them.
package e2eops

// Package e2e holds end-to-end tests on the simulated cluster of package
// simcluster: Sluice's controller (with exactly the permissions config/rbac
// grants) and webhook run against a real kube-apiserver, kube-scheduler and
// kube-controller-manager, and kwok's fake nodes run the engine's pods, so
// admission, StatefulSets, scheduling, readiness and garbage collection
// happen as on a real cluster.
package e2e

// Package workloads judges the Pod template of a Deployment, StatefulSet,
// DaemonSet, Job or CronJob with the Pod deny rules when it is applied, so
// that `kubectl apply` shows what would refuse its Pods, instead of a
// ReplicaSet's FailedCreate events later. What the rules refuse is
// returned as admission warnings, or refuses the workload in Mode Deny;
// nothing is mutated (the Pods are, when they are created).
package workloads

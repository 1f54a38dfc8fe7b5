// Package simcluster runs a simulated cluster for end-to-end tests and
// benchmarks: the real kube-apiserver and etcd of package testenv, plus the
// real kube-scheduler and kube-controller-manager, with kwok playing kubelet
// for fake nodes (pods are scheduled, go Running and Ready, and are deleted
// as on a real cluster, but no container ever runs). The components after
// the control plane are started by internal/kubesim, which `sluice dev`
// shares. All binaries are built into bin/ by `make sim-binaries` from the
// pinned tools modules.
package simcluster

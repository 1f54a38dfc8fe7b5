// Package kubesim runs the parts of a simulated cluster that come after the
// control plane: the real kube-scheduler and kube-controller-manager, and
// kwok playing kubelet for fake nodes (pods are scheduled, go Running and
// Ready, complete and are deleted as on a real cluster, but no container
// ever runs). `sluice dev` (devcluster) and the test helper
// tests/support/simcluster both start their clusters with it; the binaries are
// built into bin/ by `make sim-binaries`.
package kubesim

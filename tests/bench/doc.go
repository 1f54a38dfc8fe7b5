// Package bench holds Sluice's benchmarks that need a real control plane:
// admission latency with informer caches synced against a real
// kube-apiserver. They run with `make bench`.
package bench

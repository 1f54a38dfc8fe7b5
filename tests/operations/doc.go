// Package operations holds tests of the data-operation reconcilers against
// a real kube-apiserver: `sluice controller` runs in-process with fake
// engines, and the tests stand in for the Job and CronJob controllers and
// the kubelet (no controller-manager runs), writing Jobs' status and the
// runs a CronJob would create.
package operations

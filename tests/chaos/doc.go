// Package chaos kills Sluice's controller with SIGKILL at random points of a
// workload on the simulated cluster of package simcluster and checks that
// after each restart the cluster converges to exactly the objects the
// workload asked for: no orphan Helm release, PV, PVC, node label, Job or
// claim, and no object stuck with a deletionTimestamp (issue #17, "Proof of
// convergence"). The controller runs as the real `sluice controller` binary
// in a child process, with config/rbac's permissions; the webhook runs in
// the test process.
package chaos

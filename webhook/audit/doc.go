// Package audit evaluates stored objects against the policies, read-only:
// each Dataset, runtime, operation and ThinRuntimeProfile through the
// validating pipeline as its CREATE would be, and each Pod that mounts a
// PVC or asked for injection through the mutating pipeline's deny rules.
// Nothing is recorded (no Dataset claim) and nothing is mutated. The
// findings of one namespace at a time become a wgpolicyk8s.io PolicyReport
// (cluster-scoped objects a ClusterPolicyReport), which `sluice policy
// audit` prints and the webhook's in-cluster audit (Runner) writes.
package audit

// Package claim is the one room of operation exclusivity: which data
// operation holds a Dataset, recorded in the Dataset's
// status.operationRef (Fluid's field) and status.operationClaims, with
// optimistic concurrency: of concurrent claims that conflict, exactly one
// is written (Claimer). Holders whose operation finished, or was never
// stored and whose claim is older than a grace period, are released by
// the next claim.
//
// What blocks what is a conflict Table: Fixed, or PolicyTable, read from
// the policy data as the validating webhook serves it, so that the
// controller and the webhook claim alike. Who calls it: the validating
// webhook when an operation is admitted (webhook/validating), the
// operation reconcilers when they run one and release it as it ends
// (controller/operation), and the claim releaser, the safety net that
// frees stale holders (controller/claimrelease). The design is in
// docs/design/operation-exclusivity.md.
package claim

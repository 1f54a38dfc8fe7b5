// Package claim records which data operation holds a Dataset, in the
// Dataset's status.operationRef (Fluid's field) and status.operationClaims,
// with optimistic concurrency: of concurrent claims that conflict, exactly
// one is written. Holders whose operation finished, or was never stored and
// whose claim is older than a grace period, are released by the next claim.
// The design is in docs/design/operation-exclusivity.md.
package claim

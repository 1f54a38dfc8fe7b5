// Package claimrelease releases the stale holders of Datasets' operation
// claims: operations that finished or are being deleted, and operations
// that were never stored once their claim is older than the grace period.
// It is the safety net under controller/operation, which releases the
// claims of the operations it runs as they end.
package claimrelease

package operation

import "context"

// ConflictTable says which operation kinds block one: the table of the
// policy data the validating webhook's policies use
// (validating.operations.conflicts), so that an operation the controller
// claims for (a Cron run, one that ran after another, one the webhook did
// not see) waits for exactly what one claimed at admission would.
// claim.Conflicts is a fixed one.
type ConflictTable interface {
	// For returns the kinds whose holders block an operation of kind.
	For(ctx context.Context, kind string) ([]string, error)
}

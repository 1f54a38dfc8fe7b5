// Package operation runs data operations (DataLoad, DataMigrate, DataBackup,
// DataProcess): one reconciler per kind renders the operation into a Helm
// release through its Dataset's engine (a Job, or a CronJob for policy
// Cron), holds the Dataset's claim (package claim) exactly while the work
// executes, follows the Job into the phases "" → Pending → Executing →
// Complete | Failed, waits for runAfter and places the work after it
// (affinityStrategy), deletes finished operations after
// ttlSecondsAfterFinished, and on deletion uninstalls the release and
// releases the claim.
//
// A reconcile has the shape of the other reconcilers
// (operation_controller.go): get the operation, ensure the finalizer (or
// clean up), run the phases in order (phases.go, cron.go), each recording
// what it observed in the reconcile's scope, then compute the status from
// those observations with a pure function (status.go) and write it once
// (writes.go), with an Event for each transition. The design, including how
// a Cron operation claims its Dataset for each run, is in
// docs/design/data-operations.md.
package operation

package operation

import "github.com/sluice-data/sluice/engines"

// Condition types of a data operation. Complete and Failed are Fluid's;
// the others say what a Pending operation waits for.
const (
	// ConditionComplete is True once the operation (for Cron: its last
	// run) succeeded.
	ConditionComplete = "Complete"
	// ConditionFailed is True once the operation (for Cron: its last run)
	// failed, with the reason: the Job failed, or the operation cannot run
	// at all (Unsupported, InvalidSpec, RunAfterFailed, ...).
	ConditionFailed = "Failed"
	// ConditionWaitingForRunAfter is True while the operation named by
	// spec.runAfter (or its affinityStrategy.dependOn) has not completed;
	// False once it has. Absent without runAfter.
	ConditionWaitingForRunAfter = "WaitingForRunAfter"
	// ConditionDatasetReady: the target Dataset exists and is bound to a
	// runtime whose engine Sluice runs.
	ConditionDatasetReady = "DatasetReady"
	// ConditionDatasetClaimed: the operation holds its Dataset's claim,
	// which it does exactly while its work may execute.
	ConditionDatasetClaimed = "DatasetClaimed"
	// ConditionReleaseInstalled: the Helm release running the operation is
	// installed.
	ConditionReleaseInstalled = "ReleaseInstalled"
)

// Condition reasons.
const (
	// ReasonJobComplete: the operation's Job succeeded (Complete=True).
	ReasonJobComplete = "JobComplete"
	// ReasonJobFailed: the operation's Job failed (Failed=True).
	ReasonJobFailed = "JobFailed"
	// ReasonUnsupported: the Dataset's engine cannot run this kind of
	// operation, or the spec asks for something Sluice does not do yet
	// (policy OnEvent); the message names the engine or field.
	ReasonUnsupported = engines.ReasonUnsupported
	// ReasonInvalidSpec: the spec cannot be run; the message names the field.
	ReasonInvalidSpec = engines.ReasonInvalidSpec
	// ReasonRunAfterFailed: the operation named by runAfter failed, so this
	// one never runs.
	ReasonRunAfterFailed = "RunAfterFailed"
	// ReasonRunsNotGated: the engine's chart made a CronJob whose runs do
	// not start suspended, so a run could execute without the claim; the
	// release was removed.
	ReasonRunsNotGated = "RunsNotGated"
	// ReasonWorkloadMissing: the release is installed but its Job or
	// CronJob was deleted.
	ReasonWorkloadMissing = "WorkloadMissing"
	// ReasonNameTaken: a Job or CronJob of the release's name exists that
	// the release did not create; the operation leaves it alone.
	ReasonNameTaken = "NameTaken"

	// ReasonRunAfterPending: the runAfter operation exists but has not
	// completed (WaitingForRunAfter=True).
	ReasonRunAfterPending = "RunAfterPending"
	// ReasonRunAfterNotFound: the runAfter operation does not exist (yet).
	ReasonRunAfterNotFound = "RunAfterNotFound"
	// ReasonRunAfterComplete: the runAfter operation completed
	// (WaitingForRunAfter=False).
	ReasonRunAfterComplete = "RunAfterComplete"

	// ReasonDatasetBound: the Dataset is bound (DatasetReady=True).
	ReasonDatasetBound = "DatasetBound"
	// ReasonDatasetNotFound: the Dataset does not exist (yet).
	ReasonDatasetNotFound = "DatasetNotFound"
	// ReasonDatasetNotBound: no runtime serves the Dataset yet.
	ReasonDatasetNotBound = "DatasetNotBound"
	// ReasonRuntimeNotFound: the runtime the Dataset is bound to is gone.
	ReasonRuntimeNotFound = "RuntimeNotFound"

	// ReasonClaimed: the operation holds the Dataset (DatasetClaimed=True).
	ReasonClaimed = "Claimed"
	// ReasonDatasetHeld: an operation of a conflicting kind holds the
	// Dataset; the message names it.
	ReasonDatasetHeld = "DatasetHeld"
	// ReasonConflictTableInvalid: the operation conflict table of the
	// policy data (validating.operations.conflicts) cannot be read; the
	// message says why and where.
	ReasonConflictTableInvalid = "ConflictTableInvalid"
	// ReasonReleased: the operation finished and released the Dataset.
	ReasonReleased = "Released"
	// ReasonIdle: a Cron operation between runs holds no claim.
	ReasonIdle = "Idle"
	// ReasonNewRun: a Cron run was scheduled; the operation goes back to
	// Pending before it claims the Dataset for the run.
	ReasonNewRun = "NewRun"

	// ReasonInstalled: the release is installed (ReleaseInstalled=True).
	ReasonInstalled = "Installed"
	// ReasonReleaseFailed: Helm could not install the release; retried.
	ReasonReleaseFailed = "ReleaseFailed"
	// ReasonReleaseConflict: a Helm release of the operation's name exists
	// that is not the operation's (another chart, such as a runtime's, or
	// another object's); the operation fails (Failed=True) and leaves it,
	// and its deletion does not uninstall it.
	ReasonReleaseConflict = "ReleaseConflict"
)

// Finalizer keeps an operation until its release is uninstalled and its
// claim released.
const Finalizer = "data.sluice.io/operation"

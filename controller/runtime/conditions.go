package runtime

// Runtime condition types and reasons.
const (
	// ConditionReady summarises the runtime: release deployed, workers ready,
	// Dataset bound.
	ConditionReady = "Ready"

	ReasonDatasetNotFound = "DatasetNotFound"
	ReasonDatasetBound    = "DatasetBoundElsewhere"
	ReasonInvalidSpec     = "InvalidSpec"
	ReasonReleaseFailed   = "ReleaseFailed"
	ReasonWorkersNotReady = "WorkersNotReady"
	ReasonBound           = "Bound"

	// Finalizer keeps a runtime until its release, volumes and binding are
	// cleaned up.
	Finalizer = "data.sluice.io/runtime"
)

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
	// ReasonInUse: the runtime is being deleted but Pods still mount its
	// Dataset's PVC; its release and volumes stay until they finish.
	ReasonInUse = "InUse"

	// Finalizer keeps a runtime until its release, volumes and binding are
	// cleaned up.
	Finalizer = "data.sluice.io/runtime"
)

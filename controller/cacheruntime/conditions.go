package cacheruntime

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
	ReasonMastersNotReady = "MastersNotReady"
	ReasonBound           = "Bound"
	// ReasonInUse: the runtime is being deleted but Pods still mount its
	// Dataset's PVC; its release and volumes stay until they finish.
	ReasonInUse = "InUse"

	// Finalizer keeps a runtime until its release, volumes and binding are
	// cleaned up.
	Finalizer = "data.sluice.io/runtime"
)

// waitMessages explain the reasons that mean "still starting" (reported as
// Normal events, not warnings).
var waitMessages = map[string]string{
	ReasonMastersNotReady: "waiting for the cache masters",
	ReasonWorkersNotReady: "waiting for the cache workers",
}

package dataset

// Finalizer keeps a Dataset until no Pod uses it, no reference dataset
// mounts it and the runtime bound to it is gone.
const Finalizer = "data.sluice.io/dataset"

// Dataset condition types this controller writes. (Ready is the runtime
// controller's, which sets it True when it binds the Dataset and False when
// its runtime is deleted; this controller sets it only on a new Dataset.)
const (
	// ConditionReady is the Dataset's Ready condition.
	ConditionReady = "Ready"
	// ConditionDeleting is True while a deleted Dataset waits; its reason
	// says for what (ReasonInUse, ReasonReferenced, ReasonRuntimeDeleting).
	ConditionDeleting = "Deleting"
)

// Condition reasons.
const (
	// ReasonNotBound: no runtime is bound to the Dataset yet (Ready=False on
	// a new Dataset).
	ReasonNotBound = "NotBound"
	// ReasonInUse: the Dataset is being deleted, but Pods that are not
	// finished use it; the message names them.
	ReasonInUse = "InUse"
	// ReasonReferenced: the Dataset is being deleted, but reference
	// datasets (status.datasetRef) mount it; the message names them.
	ReasonReferenced = "Referenced"
	// ReasonRuntimeDeleting: the Dataset is being deleted, and waits for
	// its runtime's deletion (the release, PV, PVC and node labels).
	ReasonRuntimeDeleting = "RuntimeDeleting"
	// ReasonUnknownRuntime: the Dataset is bound to a runtime of a type
	// this controller runs no engine for; its deletion does not wait for it
	// (an event, not a condition).
	ReasonUnknownRuntime = "UnknownRuntime"
)

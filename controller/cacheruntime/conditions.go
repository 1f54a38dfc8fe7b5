package cacheruntime

import "github.com/sluice-data/sluice/controller/internal/rootcond"

// Runtime condition types. Ready summarises the root conditions, in the
// order of rootConditions; it is never set on its own.
const (
	// ConditionReady is True when every root condition is True (the
	// Dataset is bound to a running cache), else False with the reason and
	// message of the first root condition that is not (or InUse while a
	// deletion waits for the Pods using the Dataset).
	ConditionReady = "Ready"
	// ConditionDatasetAvailable: the Dataset of the runtime's name exists
	// and is bound to no other runtime.
	ConditionDatasetAvailable = "DatasetAvailable"
	// ConditionEngineInstalled: the engine accepts the runtime and Dataset,
	// and its Helm release is installed and in sync with them.
	ConditionEngineInstalled = "EngineInstalled"
	// ConditionMastersReady: every desired master of the release is ready
	// (True at once for engines that run no masters).
	ConditionMastersReady = "MastersReady"
	// ConditionWorkersReady: every desired worker of the release is ready
	// (True at once for engines that run no workers).
	ConditionWorkersReady = "WorkersReady"
	// ConditionVolumeBound: the Dataset's PVC and PV exist and the Dataset
	// is Bound to the runtime.
	ConditionVolumeBound = "VolumeBound"
	// ConditionCacheCleaned, set only while the runtime is deleted: the
	// cache cleanup is running (False, CleaningCache), removed the cache
	// directories (True, CacheCleaned) or gave up (False, CleanupFailed,
	// naming each node and its error). It is no root condition; Ready
	// repeats it while it is set.
	ConditionCacheCleaned = "CacheCleaned"
)

// rootConditions are the conditions Ready summarises, in the order the
// reconciler establishes them: the first that is not True gives Ready its
// reason.
var rootConditions = []string{
	ConditionDatasetAvailable, ConditionEngineInstalled, ConditionMastersReady, ConditionWorkersReady, ConditionVolumeBound,
}

// Condition reasons. Engine errors add their own (engines.Error.Reason:
// engines.ReasonInvalidSpec, thin.ReasonProfileNotFound) to
// EngineInstalled.
const (
	// ReasonPending: an earlier root condition is not True yet, so this
	// one has not been evaluated.
	ReasonPending = rootcond.ReasonPending
	// ReasonDatasetFound: the Dataset exists and is free or bound to this
	// runtime (DatasetAvailable=True).
	ReasonDatasetFound = "DatasetFound"
	// ReasonDatasetNotFound: no Dataset has the runtime's name (yet); the
	// runtime waits for it.
	ReasonDatasetNotFound = "DatasetNotFound"
	// ReasonDatasetBoundElsewhere: the Dataset is bound to another runtime.
	ReasonDatasetBoundElsewhere = "DatasetBoundElsewhere"
	// ReasonReleaseInstalled: the engine's release is installed and in
	// sync (EngineInstalled=True).
	ReasonReleaseInstalled = "ReleaseInstalled"
	// ReasonReleaseFailed: Helm could not install or upgrade the release.
	ReasonReleaseFailed = "ReleaseFailed"
	// ReasonReleaseConflict: a Helm release of the runtime's name exists of
	// another chart (EngineInstalled=False); it is left alone.
	ReasonReleaseConflict = "ReleaseConflict"
	// ReasonHostPortsExhausted: the controller's host port range has too
	// few free ports for the runtime's components on the host network
	// (EngineInstalled=False); it asks again every 30 s.
	ReasonHostPortsExhausted = "HostPortsExhausted"
	// ReasonMastersReady: every desired master is ready.
	ReasonMastersReady = "MastersReady"
	// ReasonNoMasters: the engine runs no masters for this runtime.
	ReasonNoMasters = "NoMasters"
	// ReasonMastersNotReady: the runtime waits for its masters.
	ReasonMastersNotReady = "MastersNotReady"
	// ReasonWorkersReady: every desired worker is ready.
	ReasonWorkersReady = "WorkersReady"
	// ReasonNoWorkers: the engine runs no workers for this runtime.
	ReasonNoWorkers = "NoWorkers"
	// ReasonWorkersNotReady: the runtime waits for its workers.
	ReasonWorkersNotReady = "WorkersNotReady"
	// ReasonBound: the Dataset is bound to the runtime, its PV and PVC
	// exist (VolumeBound=True, Ready=True; also the Dataset's Ready).
	ReasonBound = "Bound"
	// ReasonVolumeConflict: a PVC or PV has the name the Dataset's would
	// have, and Sluice did not create it for the Dataset (VolumeBound=False):
	// it is neither adopted nor, on deletion, deleted.
	ReasonVolumeConflict = "VolumeConflict"
	// ReasonVolumeDeleting: the Dataset's PVC or PV is being deleted
	// (replaced because its nodeAffinity no longer matches
	// spec.fuse.nodeSelector, or deleted by hand); it is created anew once
	// it is gone (VolumeBound=False).
	ReasonVolumeDeleting = "VolumeDeleting"
	// ReasonInUse: the runtime is being deleted but Pods still use its
	// Dataset (mount its PVC, or run its FUSE sidecar: volume.Uses); its
	// release and volumes stay until they finish.
	ReasonInUse = "InUse"
	// ReasonRuntimeDeleted: the Dataset's Ready after its runtime was
	// deleted (the Dataset is NotBound again).
	ReasonRuntimeDeleted = "RuntimeDeleted"
	// ReasonCleaningCache: the runtime is being deleted and its cache
	// cleanup runs (CacheCleaned=False); the message says which step.
	ReasonCleaningCache = "CleaningCache"
	// ReasonCacheCleaned: the cache cleanup removed the runtime's cache
	// directories on every node that held them (CacheCleaned=True).
	ReasonCacheCleaned = "CacheCleaned"
	// ReasonCleanupFailed: the cache cleanup gave up on some nodes (a Job
	// failed or outlasted the cleanCachePolicy's bounds) or could not
	// run; the message names each node and its error, and the deletion
	// goes on (CacheCleaned=False).
	ReasonCleanupFailed = "CleanupFailed"
	// ReasonNotBound: the Dataset's Ready while no runtime is bound to it
	// (the Dataset controller's reason for a new Dataset, and this
	// controller's once a runtime that failed is starting again).
	ReasonNotBound = "NotBound"
	// ReasonUpdating: the Dataset's Ready while a change of its mounts is
	// being applied to the bound runtime (phase Updating); the message says
	// what it waits for.
	ReasonUpdating = "Updating"
	// ReasonMountsFailed: the Dataset's Ready when the engine's mount Job
	// for its current mounts failed (phase Failed).
	ReasonMountsFailed = "MountsFailed"
)

// Finalizer keeps a runtime until its release, volumes and binding are
// cleaned up.
const Finalizer = "data.sluice.io/runtime"

// normalReasons are reasons of a not-ready runtime that are reported as
// Normal events, not warnings, besides those of waitMessages.
var normalReasons = map[string]bool{ReasonDatasetNotFound: true, ReasonCleaningCache: true, ReasonCacheCleaned: true}

// waitMessages explain the reasons that mean "still starting" (reported as
// Normal events, not warnings).
var waitMessages = map[string]string{
	ReasonMastersNotReady: "waiting for the cache masters",
	ReasonWorkersNotReady: "waiting for the cache workers",
	ReasonVolumeDeleting:  "waiting for the Dataset's PVC or PV to be deleted, to create it anew",
}

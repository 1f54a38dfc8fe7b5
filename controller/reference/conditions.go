package reference

import "github.com/sluice-data/sluice/controller/internal/rootcond"

// Runtime condition types of a reference dataset's ThinRuntime. Ready
// summarises the others, in this order (the first that is not True gives
// Ready its reason), or says InUse while a deletion waits.
const (
	ConditionReady = "Ready"
	// ConditionDatasetAvailable: the Dataset of the runtime's name exists,
	// is a reference dataset and is bound to no other runtime.
	ConditionDatasetAvailable = "DatasetAvailable"
	// ConditionReferenceAvailable: the referenced Dataset exists, is Bound,
	// is not being deleted, and its runtime and PV can be read.
	ConditionReferenceAvailable = "ReferenceAvailable"
	// ConditionVolumeBound: the reference dataset's PVC and PV (and the
	// ConfigMap copies) exist and the Dataset is Bound.
	ConditionVolumeBound = "VolumeBound"
)

var rootConditions = []string{ConditionDatasetAvailable, ConditionReferenceAvailable, ConditionVolumeBound}

// Condition reasons.
const (
	ReasonPending               = rootcond.ReasonPending
	ReasonDatasetFound          = "DatasetFound"
	ReasonDatasetNotFound       = "DatasetNotFound"
	ReasonDatasetBoundElsewhere = "DatasetBoundElsewhere"
	// ReasonInvalidSpec: the Dataset is not a valid reference dataset (no
	// dataset:// mount, another mount beside it, a malformed one, or one
	// naming a reference dataset).
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonReferenceBound: the referenced Dataset is Bound and serves the
	// reference dataset.
	ReasonReferenceBound = "ReferenceBound"
	// ReasonReferencedDatasetNotFound: the referenced Dataset does not
	// exist (yet, or any more: the reference dataset is NotBound).
	ReasonReferencedDatasetNotFound = "ReferencedDatasetNotFound"
	// ReasonReferencedDatasetNotBound: the referenced Dataset exists but no
	// runtime serves it (its PV, runtime or phase say so).
	ReasonReferencedDatasetNotBound = "ReferencedDatasetNotBound"
	// ReasonReferencedDatasetDeleting: the referenced Dataset is being
	// deleted; a reference dataset not bound yet does not bind to it.
	ReasonReferencedDatasetDeleting = "ReferencedDatasetDeleting"
	ReasonBound                     = "Bound"
	// ReasonVolumeConflict: an object the reference dataset needs (its PVC,
	// PV or a ConfigMap copy) has the name Sluice would give it and was not
	// created by Sluice for this Dataset: it is neither adopted nor deleted.
	ReasonVolumeConflict = "VolumeConflict"
	// ReasonVolumeOutOfDate: the reference dataset's PV points at another
	// FUSE mount than the referenced Dataset's (that Dataset was replaced);
	// it is replaced once no Pod uses it.
	ReasonVolumeOutOfDate = "VolumeOutOfDate"
	// ReasonInUse: the runtime is being deleted while Pods use the
	// reference dataset.
	ReasonInUse = "InUse"
	// ReasonRuntimeDeleted is the Dataset's Ready reason once its runtime
	// is deleted.
	ReasonRuntimeDeleted = "RuntimeDeleted"
)

// Dataset labels and annotations of the ConfigMap copies.
const (
	// AnnotationCopiedFrom on a ConfigMap copy names its source,
	// "<namespace>/<name>".
	AnnotationCopiedFrom = "data.sluice.io/copied-from"
	// labelManagedBy and labelDataset let the controller's write guard
	// (charts/sluice guard/controller-writes.yaml) admit the copies.
	labelManagedBy = "app.kubernetes.io/managed-by"
	labelDataset   = "fluid.io/dataset"
)

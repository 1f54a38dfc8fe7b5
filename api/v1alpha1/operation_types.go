package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OperationKind names a data-operation kind.
// +kubebuilder:validation:Enum=DataLoad;DataBackup;DataMigrate;DataProcess
type OperationKind string

const (
	// DataLoadKind is the DataLoad kind.
	DataLoadKind OperationKind = "DataLoad"
	// DataBackupKind is the DataBackup kind.
	DataBackupKind OperationKind = "DataBackup"
	// DataMigrateKind is the DataMigrate kind.
	DataMigrateKind OperationKind = "DataMigrate"
	// DataProcessKind is the DataProcess kind.
	DataProcessKind OperationKind = "DataProcess"
)

// Phase is the lifecycle phase of a data operation.
type Phase string

const (
	// PhaseNone means the controller has not seen the operation yet.
	PhaseNone Phase = ""
	// PhasePending means the operation waits: for its dataset, a claim, or runAfter.
	PhasePending Phase = "Pending"
	// PhaseExecuting means the operation's job is running.
	PhaseExecuting Phase = "Executing"
	// PhaseComplete means the operation succeeded.
	PhaseComplete Phase = "Complete"
	// PhaseFailed means the operation failed; conditions say why.
	PhaseFailed Phase = "Failed"
)

// Policy says when a data operation runs.
// +kubebuilder:validation:Enum=Once;Cron;OnEvent
type Policy string

const (
	// Once runs the operation one time.
	Once Policy = "Once"
	// Cron runs the operation on spec.schedule.
	Cron Policy = "Cron"
	// OnEvent runs the operation when its dataset changes.
	OnEvent Policy = "OnEvent"
)

// ObjectRef names an object of a data-operation kind.
type ObjectRef struct {
	// APIVersion of the referent.
	// +optional
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind of the referent.
	Kind OperationKind `json:"kind"`
	// Name of the referent.
	Name string `json:"name"`
	// Namespace of the referent; defaults to the referrer's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// AffinityPolicy says how an operation follows the node of the one it runs after.
type AffinityPolicy string

const (
	// DefaultAffinityStrategy adds no affinity.
	DefaultAffinityStrategy AffinityPolicy = ""
	// RequireAffinityStrategy requires the same topology as the preceding operation.
	RequireAffinityStrategy AffinityPolicy = "Require"
	// PreferAffinityStrategy prefers the same topology as the preceding operation.
	PreferAffinityStrategy AffinityPolicy = "Prefer"
)

// Prefer is a weighted topology key to prefer.
type Prefer struct {
	// Name is a node label key, e.g. topology.kubernetes.io/zone.
	Name string `json:"name"`
	// Weight is the preference's weight.
	Weight int32 `json:"weight"`
}

// Require is a topology key to require.
type Require struct {
	// Name is a node label key, e.g. kubernetes.io/hostname.
	// +optional
	Name string `json:"name,omitempty"`
}

// AffinityStrategy places an operation near the one it depends on.
type AffinityStrategy struct {
	// DependOn is the operation whose placement is followed; by default the
	// runAfter operation.
	// +optional
	DependOn *ObjectRef `json:"dependOn,omitempty"`
	// Policy is Require, Prefer or empty (no affinity).
	// +optional
	Policy AffinityPolicy `json:"policy,omitempty"`
	// Prefers are the weighted topology keys for Prefer.
	// +optional
	Prefers []Prefer `json:"prefers,omitempty"`
	// Requires are the topology keys for Require.
	// +optional
	Requires []Require `json:"requires,omitempty"`
}

// OperationRef names the operation that must complete before this one runs.
type OperationRef struct {
	ObjectRef `json:",inline"`
	// AffinityStrategy places this operation near the preceding one.
	// +optional
	AffinityStrategy AffinityStrategy `json:"affinityStrategy,omitempty"`
}

// TargetDataset names the Dataset an operation works on.
type TargetDataset struct {
	// Name is the Dataset's name.
	Name string `json:"name"`
	// Namespace is the Dataset's namespace; it must be the operation's own.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// WaitingStatus says what an operation waits for.
type WaitingStatus struct {
	// OperationComplete is true while the runAfter operation has not completed.
	// +optional
	OperationComplete *bool `json:"operationComplete,omitempty"`
}

// OperationStatus is the observed state shared by every data operation.
type OperationStatus struct {
	// Phase is the operation's lifecycle phase, derived from its conditions.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Duration is how long the last run took, e.g. "1m20s".
	// +optional
	Duration string `json:"duration,omitempty"`
	// Conditions are the operation's conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Infos carries operation-specific results, e.g. a backup's location.
	// +optional
	Infos map[string]string `json:"infos,omitempty"`
	// LastScheduleTime is when a Cron operation last started.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// LastSuccessfulTime is when the operation last completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`
	// WaitingFor says what the operation waits for.
	// +optional
	WaitingFor WaitingStatus `json:"waitingFor,omitempty"`
	// NodeAffinity records where the operation ran, for operations after it.
	// +optional
	NodeAffinity *corev1.NodeAffinity `json:"nodeAffinity,omitempty"`
	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

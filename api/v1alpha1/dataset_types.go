package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DatasetPhase is the binding state of a Dataset.
type DatasetPhase string

const (
	// NoneDatasetPhase means the controller has not seen the Dataset yet.
	NoneDatasetPhase DatasetPhase = ""
	// PendingDatasetPhase is kept for compatibility; Sluice does not set it.
	PendingDatasetPhase DatasetPhase = "Pending"
	// NotBoundDatasetPhase means no runtime serves the Dataset.
	NotBoundDatasetPhase DatasetPhase = "NotBound"
	// BoundDatasetPhase means a runtime serves the Dataset and pods may use it.
	BoundDatasetPhase DatasetPhase = "Bound"
	// FailedDatasetPhase means binding failed; conditions say why.
	FailedDatasetPhase DatasetPhase = "Failed"
	// UpdatingDatasetPhase means the runtime is applying a change.
	UpdatingDatasetPhase DatasetPhase = "Updating"
	// DataMigratingDatasetPhase means a DataMigrate is writing the Dataset.
	DataMigratingDatasetPhase DatasetPhase = "DataMigrating"
)

// PlacementMode says whether a Dataset's workers share nodes with other datasets.
// +kubebuilder:validation:Enum=Exclusive;"";Shared
type PlacementMode string

const (
	// ExclusiveMode gives the Dataset's workers nodes of their own.
	ExclusiveMode PlacementMode = "Exclusive"
	// ShareMode lets workers of several datasets share nodes.
	ShareMode PlacementMode = "Shared"
	// DefaultMode behaves as ExclusiveMode.
	DefaultMode PlacementMode = ""
)

// Mount is one under-filesystem mounted into a Dataset.
// +kubebuilder:validation:XValidation:rule="self.mountPoint.trim().size() > 0",message="mounts[].mountPoint must not be blank"
type Mount struct {
	// MountPoint is the under-filesystem's URI, e.g. s3://bucket/prefix,
	// local:///mnt/data, pvc://claim/sub or dataset://ns/name.
	// +kubebuilder:validation:MinLength=5
	// +kubebuilder:validation:MaxLength=4096
	MountPoint string `json:"mountPoint"`

	// Options are engine options for this mount.
	// +optional
	Options map[string]string `json:"options,omitempty"`

	// Name names the mount; the default path is /<name>.
	// +kubebuilder:validation:MinLength=0
	// +optional
	Name string `json:"name,omitempty"`

	// Path is where the mount appears inside the dataset; default /<name>.
	// +optional
	Path string `json:"path,omitempty"`

	// ReadOnly mounts the under-filesystem read-only.
	// +optional
	ReadOnly bool `json:"readOnly,omitempty"`

	// Shared marks the mount as shared between datasets.
	// +optional
	Shared bool `json:"shared,omitempty"`

	// EncryptOptions pass secret values to the engine by Secret reference.
	// +optional
	EncryptOptions []EncryptOption `json:"encryptOptions,omitempty"`
}

// CacheableNodeAffinity limits the nodes that may hold the Dataset's cache.
type CacheableNodeAffinity struct {
	// Required is copied into the workers' required node affinity.
	// +optional
	Required *corev1.NodeSelector `json:"required,omitempty"`
}

// Runtime records a runtime bound to a Dataset.
type Runtime struct {
	// Name is the runtime's name.
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace is the runtime's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Category is the runtime's category, e.g. Accelerate.
	// +optional
	Category Category `json:"category,omitempty"`
	// Type is the engine type, e.g. juicefs.
	// +optional
	Type string `json:"type,omitempty"`
	// MasterReplicas is the number of masters.
	// +optional
	MasterReplicas int32 `json:"masterReplicas,omitempty"`
}

// Category groups runtimes; a Dataset binds at most one runtime per category.
type Category string

// AccelerateCategory is the category of every caching runtime.
const AccelerateCategory Category = "Accelerate"

// DataRestoreLocation is where a Dataset restores its metadata backup from.
type DataRestoreLocation struct {
	// Path is a local:// or pvc:// backup location.
	// +optional
	Path string `json:"path,omitempty"`
	// NodeName is the node holding a local:// backup.
	// +optional
	NodeName string `json:"nodeName,omitempty"`
}

// DatasetSpec is what a Dataset should contain and where it may be cached.
type DatasetSpec struct {
	// Mounts are the under-filesystems that make up the Dataset.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Mounts []Mount `json:"mounts,omitempty"`

	// Owner is the user that owns the Dataset's files.
	// +optional
	Owner *User `json:"owner,omitempty"`

	// NodeAffinity limits where the cache may be placed.
	// +optional
	NodeAffinity *CacheableNodeAffinity `json:"nodeAffinity,omitempty"`

	// Tolerations let cache workers run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// AccessModes are the access modes of the Dataset's PV and PVC.
	// +optional
	AccessModes []corev1.PersistentVolumeAccessMode `json:"accessModes,omitempty"`

	// Runtimes lists the runtimes bound to the Dataset (kept for compatibility).
	// +optional
	Runtimes []Runtime `json:"runtimes,omitempty"`

	// Placement says whether workers may share nodes with other datasets.
	// +optional
	Placement PlacementMode `json:"placement,omitempty"`

	// DataRestoreLocation restores the Dataset from a backup.
	// +optional
	DataRestoreLocation *DataRestoreLocation `json:"dataRestoreLocation,omitempty"`

	// SharedOptions apply to every mount.
	// +optional
	SharedOptions map[string]string `json:"sharedOptions,omitempty"`

	// SharedEncryptOptions apply to every mount.
	// +optional
	SharedEncryptOptions []EncryptOption `json:"sharedEncryptOptions,omitempty"`
}

// OperationClaim is one data operation's hold on a Dataset.
type OperationClaim struct {
	// Kind is the operation's kind.
	Kind string `json:"kind"`
	// Name is the operation's name, in the Dataset's namespace.
	Name string `json:"name"`
	// ClaimedAt is when the claim was made, at the operation's admission.
	ClaimedAt metav1.Time `json:"claimedAt"`
}

// HCFSStatus is the Hadoop-compatible endpoint of a Dataset.
type HCFSStatus struct {
	// Endpoint is the HCFS URL.
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// UnderlayerFileSystemVersion is the engine's file-system version.
	// +optional
	UnderlayerFileSystemVersion string `json:"underlayerFileSystemVersion,omitempty"`
}

// DatasetStatus is the observed state of a Dataset.
type DatasetStatus struct {
	// Mounts are the mounts the bound runtime serves.
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Mounts []Mount `json:"mounts,omitempty"`

	// UfsTotal is the size of the under-filesystems, e.g. "10.0GiB".
	// +optional
	UfsTotal string `json:"ufsTotal,omitempty"`

	// Phase is the binding state, derived from the conditions.
	// +optional
	Phase DatasetPhase `json:"phase,omitempty"`

	// Runtimes are the runtimes bound to the Dataset.
	// +optional
	Runtimes []Runtime `json:"runtimes,omitempty"`

	// Conditions are the Dataset's conditions; Ready summarises them.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// CacheStates are the cache figures of the bound runtime.
	// +optional
	CacheStates CacheStateList `json:"cacheStates,omitempty"`

	// HCFSStatus is the Hadoop-compatible endpoint.
	// +optional
	HCFSStatus *HCFSStatus `json:"hcfs,omitempty"`

	// FileNum is the number of files in the Dataset.
	// +optional
	FileNum string `json:"fileNum,omitempty"`

	// DataLoadRef is deprecated; use OperationRef.
	// +optional
	DataLoadRef string `json:"dataLoadRef,omitempty"`

	// DataBackupRef is deprecated; use OperationRef.
	// +optional
	DataBackupRef string `json:"dataBackupRef,omitempty"`

	// OperationRef maps a data-operation kind (DataLoad, DataMigrate, …) to
	// the operations that hold the Dataset for that kind, comma-separated
	// (one name for kinds that are exclusive), as Fluid records them.
	// +optional
	OperationRef map[string]string `json:"operationRef,omitempty"`

	// OperationClaims records when each holder in OperationRef claimed the
	// Dataset, so that a claim whose operation was never stored can be
	// released after a grace period. Sluice's validating webhook writes it
	// together with OperationRef.
	// +listType=map
	// +listMapKey=kind
	// +listMapKey=name
	// +optional
	OperationClaims []OperationClaim `json:"operationClaims,omitempty"`

	// DatasetRef lists the reference datasets (namespace/name) that mount this one.
	// +optional
	DatasetRef []string `json:"datasetRef,omitempty"`

	// ObservedGeneration is the generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// The name rule (audit N11): without a '.', the Dataset's PersistentVolume
// name (controller/volume) is unique, even when admission (the webhook's
// name-dns1035) is bypassed. It is judged on create only (optionalOldSelf):
// names are immutable, and a Dataset stored before stays updatable and
// deletable.
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || (self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))",message="metadata.name must be a DNS-1035 label: lowercase letters, digits and '-', starting with a letter, at most 63 characters (the Dataset's PersistentVolume name is unique only for such names)",optionalOldSelf=true

// Dataset is a set of data from one or more under-filesystems, cached by a
// runtime of the same name close to the pods that read it. Its name is a
// DNS-1035 label, as Fluid's controller requires.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=dataset,categories=fluid
// +kubebuilder:printcolumn:name="Ufs Total Size",type="string",JSONPath=`.status.ufsTotal`
// +kubebuilder:printcolumn:name="Cached",type="string",JSONPath=`.status.cacheStates.cached`
// +kubebuilder:printcolumn:name="Cache Capacity",type="string",JSONPath=`.status.cacheStates.cacheCapacity`
// +kubebuilder:printcolumn:name="Cached Percentage",type="string",JSONPath=`.status.cacheStates.cachedPercentage`
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="HCFS URL",type="string",JSONPath=`.status.hcfs.endpoint`,priority=10
// +kubebuilder:printcolumn:name="TOTAL FILES",type="string",JSONPath=`.status.fileNum`,priority=11
// +kubebuilder:printcolumn:name="CACHE HIT RATIO",type="string",JSONPath=`.status.cacheStates.cacheHitRatio`,priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type Dataset struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatasetSpec   `json:"spec,omitempty"`
	Status DatasetStatus `json:"status,omitempty"`
}

// DatasetList is a list of Datasets.
//
// +kubebuilder:object:root=true
type DatasetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Dataset `json:"items"`
}

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DatasetToMigrate names a Dataset (and a path in it) as a migration end.
type DatasetToMigrate struct {
	// Name is the Dataset's name.
	Name string `json:"name"`
	// Namespace is the Dataset's namespace.
	Namespace string `json:"namespace"`
	// Path is the directory inside the Dataset; default /.
	// +optional
	Path string `json:"path,omitempty"`
}

// ExternalStorage is storage outside Sluice, by URI.
type ExternalStorage struct {
	// URI is the storage's address, e.g. s3://bucket/prefix.
	URI string `json:"uri"`
	// EncryptOptions pass credentials by Secret reference.
	// +optional
	EncryptOptions []EncryptOption `json:"encryptOptions,omitempty"`
}

// DataToMigrate is one end of a migration: a Dataset or external storage.
type DataToMigrate struct {
	// DataSet is a Dataset end.
	// +optional
	DataSet *DatasetToMigrate `json:"dataset,omitempty"`
	// ExternalStorage is an external end.
	// +optional
	ExternalStorage *ExternalStorage `json:"externalStorage,omitempty"`
}

// DataMigrateSpec is what a DataMigrate copies and how its job runs.
// +kubebuilder:validation:XValidation:rule="!has(self.policy) || self.policy != 'Cron' || (has(self.schedule) && self.schedule.size() > 0)",message="spec.schedule is required when spec.policy is Cron"
type DataMigrateSpec struct {
	VersionSpec `json:",inline"`
	// From is the source.
	From DataToMigrate `json:"from"`
	// To is the destination.
	To DataToMigrate `json:"to"`
	// Block makes the destination Dataset unusable while migrating.
	// +optional
	Block bool `json:"block,omitempty"`
	// RuntimeType selects the engine's migrate implementation.
	// +optional
	RuntimeType string `json:"runtimeType,omitempty"`
	// Options are engine-specific migrate options.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// Policy says when the migration runs.
	// +kubebuilder:default=Once
	// +optional
	Policy Policy `json:"policy,omitempty"`
	// Schedule is a cron expression; required when Policy is Cron.
	// +optional
	Schedule string `json:"schedule,omitempty"`
	// PodMetadata adds labels and annotations to the migrate pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Affinity constrains where the migrate pods run.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations let the migrate pods run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// NodeSelector constrains the migrate pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// SchedulerName is the migrate pods' scheduler.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`
	// RunAfter names the operation that must complete first.
	// +optional
	RunAfter *OperationRef `json:"runAfter,omitempty"`
	// TTLSecondsAfterFinished deletes the DataMigrate this long after it finishes.
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// Resources are the migrate pods' compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Parallelism is the number of migrate workers.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	Parallelism int32 `json:"parallelism,omitempty"`
	// ParallelOptions configure parallel migration.
	// +optional
	ParallelOptions map[string]string `json:"parallelOptions,omitempty"`
}

// DataMigrate copies data between a Dataset and another Dataset or external storage.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=migrate,categories=fluid
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Duration",type="string",JSONPath=`.status.duration`
// +kubebuilder:printcolumn:name="Policy",type="string",JSONPath=`.spec.policy`,priority=1
// +kubebuilder:printcolumn:name="Last Schedule",type="date",JSONPath=`.status.lastScheduleTime`,priority=1
type DataMigrate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DataMigrateSpec `json:"spec,omitempty"`
	Status OperationStatus `json:"status,omitempty"`
}

// DataMigrateList is a list of DataMigrates.
//
// +kubebuilder:object:root=true
type DataMigrateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DataMigrate `json:"items"`
}

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TargetPath is one directory of a Dataset to load into the cache.
type TargetPath struct {
	// Path is the directory inside the Dataset.
	Path string `json:"path"`
	// Replicas is the number of cache copies to load.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// DataLoadSpec is what a DataLoad loads and how its job runs.
// +kubebuilder:validation:XValidation:rule="!has(self.policy) || self.policy != 'Cron' || (has(self.schedule) && self.schedule.size() > 0)",message="spec.schedule is required when spec.policy is Cron"
type DataLoadSpec struct {
	// Dataset is the Dataset to load.
	// +optional
	Dataset TargetDataset `json:"dataset,omitempty"`
	// LoadMetadata syncs metadata before loading.
	// +optional
	LoadMetadata bool `json:"loadMetadata,omitempty"`
	// Target lists the directories to load; empty means the whole Dataset.
	// +optional
	Target []TargetPath `json:"target,omitempty"`
	// Options are engine-specific load options.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// PodMetadata adds labels and annotations to the load pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Affinity constrains where the load pod runs.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations let the load pod run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// NodeSelector constrains the load pod to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// SchedulerName is the load pod's scheduler.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`
	// Resources are the load pod's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Policy says when the load runs.
	// +kubebuilder:default=Once
	// +optional
	Policy Policy `json:"policy,omitempty"`
	// Schedule is a cron expression; required when Policy is Cron.
	// +optional
	Schedule string `json:"schedule,omitempty"`
	// RunAfter names the operation that must complete first.
	// +optional
	RunAfter *OperationRef `json:"runAfter,omitempty"`
	// TTLSecondsAfterFinished deletes the DataLoad this long after it finishes.
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// DataLoad loads part or all of a Dataset into its cache.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=load,categories=fluid
// +kubebuilder:printcolumn:name="Dataset",type="string",JSONPath=`.spec.dataset.name`
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Duration",type="string",JSONPath=`.status.duration`
// +kubebuilder:printcolumn:name="Policy",type="string",JSONPath=`.spec.policy`,priority=1
// +kubebuilder:printcolumn:name="Last Schedule",type="date",JSONPath=`.status.lastScheduleTime`,priority=1
type DataLoad struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DataLoadSpec    `json:"spec,omitempty"`
	Status OperationStatus `json:"status,omitempty"`
}

// DataLoadList is a list of DataLoads.
//
// +kubebuilder:object:root=true
type DataLoadList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DataLoad `json:"items"`
}

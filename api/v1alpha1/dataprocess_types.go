package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TargetDatasetWithMountPath names the Dataset a DataProcess mounts, and where.
type TargetDatasetWithMountPath struct {
	// Name is the Dataset's name.
	Name string `json:"name"`
	// Namespace is the Dataset's namespace; it must be the operation's own.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// MountPath is where the Dataset appears in the processor's containers.
	MountPath string `json:"mountPath"`
	// SubPath mounts a directory of the Dataset instead of its root.
	// +optional
	SubPath string `json:"subPath,omitempty"`
}

// JobProcessor runs a user-written pod spec.
type JobProcessor struct {
	// PodSpec is the processor pod's spec.
	// +optional
	PodSpec *corev1.PodSpec `json:"podSpec,omitempty"`
}

// ScriptProcessor runs a script in a given image.
type ScriptProcessor struct {
	VersionSpec `json:",inline"`
	// RestartPolicy is Never or OnFailure.
	// +kubebuilder:validation:Enum=Never;OnFailure
	// +kubebuilder:default=Never
	// +optional
	RestartPolicy corev1.RestartPolicy `json:"restartPolicy,omitempty"`
	// Command runs Source, e.g. ["bash", "-c"].
	// +optional
	Command []string `json:"command,omitempty"`
	// Source is the script.
	Source string `json:"source"`
	// Env adds environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Volumes are added to the processor pod.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// VolumeMounts mount Volumes into the script container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// Resources are the script container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// Processor is what a DataProcess runs: a job or a script.
type Processor struct {
	// ServiceAccountName is the processor pod's service account.
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// PodMetadata adds labels and annotations to the processor pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Job runs a user-written pod spec.
	// +optional
	Job *JobProcessor `json:"job,omitempty"`
	// Script runs a script.
	// +optional
	Script *ScriptProcessor `json:"script,omitempty"`
}

// DataProcessSpec is what a DataProcess runs against which Dataset.
// +kubebuilder:validation:XValidation:rule="!has(self.policy) || self.policy != 'Cron' || (has(self.schedule) && self.schedule.size() > 0)",message="spec.schedule is required when spec.policy is Cron"
type DataProcessSpec struct {
	// Dataset is the Dataset the processor mounts.
	Dataset TargetDatasetWithMountPath `json:"dataset"`
	// Processor is what runs.
	Processor Processor `json:"processor"`
	// RunAfter names the operation that must complete first.
	// +optional
	RunAfter *OperationRef `json:"runAfter,omitempty"`
	// TTLSecondsAfterFinished deletes the DataProcess this long after it finishes.
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// Policy says when the processor runs.
	// +kubebuilder:default=Once
	// +optional
	Policy Policy `json:"policy,omitempty"`
	// Schedule is a cron expression; required when Policy is Cron.
	// +optional
	Schedule string `json:"schedule,omitempty"`
}

// DataProcess runs a job or script against a Dataset.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=fluid
// +kubebuilder:printcolumn:name="Dataset",type="string",JSONPath=`.spec.dataset.name`
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Duration",type="string",JSONPath=`.status.duration`
// +kubebuilder:printcolumn:name="Policy",type="string",JSONPath=`.spec.policy`,priority=1
// +kubebuilder:printcolumn:name="Last Schedule",type="date",JSONPath=`.status.lastScheduleTime`,priority=1
type DataProcess struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DataProcessSpec `json:"spec,omitempty"`
	Status OperationStatus `json:"status,omitempty"`
}

// DataProcessList is a list of DataProcesses.
//
// +kubebuilder:object:root=true
type DataProcessList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DataProcess `json:"items"`
}

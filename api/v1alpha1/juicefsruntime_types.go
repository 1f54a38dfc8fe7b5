package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JuiceFSCompTemplateSpec configures one JuiceFS component.
type JuiceFSCompTemplateSpec struct {
	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Ports are the container's ports.
	// +optional
	Ports []corev1.ContainerPort `json:"ports,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Options are JuiceFS command-line options.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// Env adds environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Enabled turns an optional component on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// NodeSelector constrains the component's pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// PodMetadata adds labels and annotations to the pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
}

// JuiceFSFuseSpec configures the JuiceFS FUSE client.
type JuiceFSFuseSpec struct {
	// Image is the FUSE image repository.
	// +optional
	Image string `json:"image,omitempty"`
	// ImageTag is the FUSE image tag.
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
	// ImagePullPolicy is one of Always, Never or IfNotPresent.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// Env adds environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Resources are the FUSE container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Options are JuiceFS mount options.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// NodeSelector constrains where FUSE may run.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// CleanPolicy says when a node's FUSE pod may be removed.
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
	// PodMetadata adds labels and annotations to the FUSE pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
}

// JuiceFSRuntimeSpec is the desired state of a JuiceFS cache.
type JuiceFSRuntimeSpec struct {
	// JuiceFSVersion is the image of the workers.
	// +optional
	JuiceFSVersion VersionSpec `json:"juicefsVersion,omitempty"`
	// InitUsers configures the init container that creates users.
	// +optional
	InitUsers InitUsersSpec `json:"initUsers,omitempty"`
	// Master configures the master (JuiceFS community edition has none).
	// +optional
	Master JuiceFSCompTemplateSpec `json:"master,omitempty"`
	// Worker configures the cache workers.
	// +optional
	Worker JuiceFSCompTemplateSpec `json:"worker,omitempty"`
	// JobWorker configures the job workers.
	// +optional
	JobWorker JuiceFSCompTemplateSpec `json:"jobWorker,omitempty"`
	// Fuse configures the FUSE client.
	// +optional
	Fuse JuiceFSFuseSpec `json:"fuse,omitempty"`
	// TieredStore is the workers' cache layout; JuiceFS uses levels[0].
	// +optional
	TieredStore TieredStore `json:"tieredstore,omitempty"`
	// Configs name Secrets or files holding JuiceFS configuration.
	// +optional
	Configs *[]string `json:"configs,omitempty"`
	// Replicas is the number of workers. It defaults to 0 (Fluid's reading
	// of an absent value) so that the scale subresource always finds it.
	// +kubebuilder:default=0
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// RunAs is the user the engine runs as.
	// +optional
	RunAs *User `json:"runAs,omitempty"`
	// DisablePrometheus turns off the metrics endpoints.
	// +optional
	DisablePrometheus bool `json:"disablePrometheus,omitempty"`
	// Volumes are added to the engine's pods.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// VolumeClaimTemplates are added to the worker StatefulSet.
	// +listType=atomic
	// +optional
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
	// PodMetadata adds labels and annotations to every engine pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Management groups maintenance settings.
	// +kubebuilder:default={}
	// +optional
	Management RuntimeManagement `json:"management,omitempty"`
}

// JuiceFSRuntime caches a Dataset with JuiceFS.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentWorkerNumberScheduled,selectorpath=.status.selector
// +kubebuilder:resource:scope=Namespaced,shortName=juicefs,categories=fluid
// +kubebuilder:printcolumn:name="Ready Workers",type="integer",JSONPath=`.status.workerNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Workers",type="integer",JSONPath=`.status.desiredWorkerNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Worker Phase",type="string",JSONPath=`.status.workerPhase`
// +kubebuilder:printcolumn:name="Ready Fuses",type="integer",JSONPath=`.status.fuseNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Fuses",type="integer",JSONPath=`.status.desiredFuseNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Fuse Phase",type="string",JSONPath=`.status.fusePhase`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type JuiceFSRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JuiceFSRuntimeSpec `json:"spec,omitempty"`
	Status RuntimeStatus      `json:"status,omitempty"`
}

// JuiceFSRuntimeList is a list of JuiceFSRuntimes.
//
// +kubebuilder:object:root=true
type JuiceFSRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []JuiceFSRuntime `json:"items"`
}

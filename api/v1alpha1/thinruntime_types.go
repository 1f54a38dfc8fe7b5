package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ThinCompTemplateSpec configures the optional worker of a ThinRuntime.
type ThinCompTemplateSpec struct {
	VersionSpec `json:",inline"`
	// ImagePullSecrets are used to pull the worker image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Replicas is the number of workers.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Ports are the container's ports.
	// +optional
	Ports []corev1.ContainerPort `json:"ports,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Env adds environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Enabled turns the worker on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// NodeSelector constrains the workers to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// LivenessProbe is the container's liveness probe.
	// +optional
	LivenessProbe *corev1.Probe `json:"livenessProbe,omitempty"`
	// ReadinessProbe is the container's readiness probe.
	// +optional
	ReadinessProbe *corev1.Probe `json:"readinessProbe,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
}

// ThinFuseSpec configures the user-supplied FUSE program of a ThinRuntime.
type ThinFuseSpec struct {
	VersionSpec `json:",inline"`
	// ImagePullSecrets are used to pull the FUSE image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Ports are the container's ports.
	// +optional
	Ports []corev1.ContainerPort `json:"ports,omitempty"`
	// Env adds environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Command is the FUSE container's entrypoint.
	// +optional
	Command []string `json:"command,omitempty"`
	// Args are the entrypoint's arguments.
	// +optional
	Args []string `json:"args,omitempty"`
	// Options are mount options handed to the FUSE program.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// Resources are the FUSE container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// NodeSelector constrains where FUSE may run.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// CleanPolicy says when a node's FUSE pod may be removed.
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
	// LivenessProbe is the FUSE container's liveness probe.
	// +optional
	LivenessProbe *corev1.Probe `json:"livenessProbe,omitempty"`
	// ReadinessProbe is the FUSE container's readiness probe.
	// +optional
	ReadinessProbe *corev1.Probe `json:"readinessProbe,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// Lifecycle holds the FUSE container's lifecycle hooks.
	// +optional
	Lifecycle *corev1.Lifecycle `json:"lifecycle,omitempty"`
	// PodMetadata adds labels and annotations to the FUSE pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
}

// ThinRuntimeSpec is the desired state of a bring-your-own-FUSE runtime.
type ThinRuntimeSpec struct {
	// ProfileName names the cluster-scoped ThinRuntimeProfile to start from.
	// +optional
	ProfileName string `json:"profileName,omitempty"`
	// Worker configures the optional workers.
	// +optional
	Worker ThinCompTemplateSpec `json:"worker,omitempty"`
	// Fuse configures the FUSE program; it overrides the profile's.
	// +optional
	Fuse ThinFuseSpec `json:"fuse,omitempty"`
	// TieredStore is the workers' cache layout.
	// +optional
	TieredStore TieredStore `json:"tieredstore,omitempty"`
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
	// Management groups maintenance settings.
	// +kubebuilder:default={}
	// +optional
	Management RuntimeManagement `json:"management,omitempty"`
	// ImagePullSecrets are used to pull every engine image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// ThinRuntime serves a Dataset through a FUSE program the user brings,
// described by a ThinRuntimeProfile.
//
// Fluid serves ThinRuntime without a scale subresource or printer columns;
// Sluice adds both, like the other runtimes, which a Fluid manifest never notices.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentWorkerNumberScheduled,selectorpath=.status.selector
// +kubebuilder:resource:scope=Namespaced,categories=fluid
// +kubebuilder:printcolumn:name="Profile",type="string",JSONPath=`.spec.profileName`
// +kubebuilder:printcolumn:name="Worker Phase",type="string",JSONPath=`.status.workerPhase`,priority=10
// +kubebuilder:printcolumn:name="Fuse Phase",type="string",JSONPath=`.status.fusePhase`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type ThinRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ThinRuntimeSpec `json:"spec,omitempty"`
	Status RuntimeStatus   `json:"status,omitempty"`
}

// ThinRuntimeList is a list of ThinRuntimes.
//
// +kubebuilder:object:root=true
type ThinRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ThinRuntime `json:"items"`
}

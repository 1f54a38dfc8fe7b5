package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JindoCompTemplateSpec configures a JindoCache master or worker.
type JindoCompTemplateSpec struct {
	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Properties are JindoCache properties.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// Ports maps port names to numbers.
	// +optional
	Ports map[string]int `json:"ports,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Env adds environment variables.
	// +optional
	Env map[string]string `json:"env,omitempty"`
	// NodeSelector constrains the component's pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Tolerations let the pods run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// Labels are added to the pods (deprecated; use PodMetadata).
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// PodMetadata adds labels and annotations to the pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Disabled turns the component off.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// ImagePullSecrets are used to pull the component's image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// JindoFuseMetrics says whether and where FUSE metrics are scraped.
type JindoFuseMetrics struct {
	// Enabled turns FUSE metrics on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// ScrapeTarget is MountPod, Sidecar, All or None.
	// +optional
	ScrapeTarget string `json:"scrapeTarget,omitempty"`
}

// JindoFuseSpec configures the JindoCache FUSE client.
type JindoFuseSpec struct {
	// Image is the FUSE image repository.
	// +optional
	Image string `json:"image,omitempty"`
	// ImageTag is the FUSE image tag.
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
	// ImagePullPolicy is one of Always, Never or IfNotPresent.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// Properties are FUSE properties.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// Env adds environment variables.
	// +optional
	Env map[string]string `json:"env,omitempty"`
	// Resources are the FUSE container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Args are the FUSE command's arguments.
	// +optional
	Args []string `json:"args,omitempty"`
	// NodeSelector constrains where FUSE may run.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Tolerations let FUSE run on tainted nodes.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// Labels are added to the FUSE pods (deprecated; use PodMetadata).
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// PodMetadata adds labels and annotations to the FUSE pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// CleanPolicy says when a node's FUSE pod may be removed.
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
	// Disabled turns FUSE off.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// LogConfig configures FUSE logging.
	// +optional
	LogConfig map[string]string `json:"logConfig,omitempty"`
	// Metrics configures FUSE metrics.
	// +optional
	Metrics JindoFuseMetrics `json:"metrics,omitempty"`
	// ImagePullSecrets are used to pull the FUSE image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// JindoRuntimeSpec is the desired state of a JindoCache cache.
type JindoRuntimeSpec struct {
	// JindoVersion is the image of the master and workers.
	// +optional
	JindoVersion VersionSpec `json:"jindoVersion,omitempty"`
	// Master configures the masters.
	// +optional
	Master JindoCompTemplateSpec `json:"master,omitempty"`
	// Worker configures the workers.
	// +optional
	Worker JindoCompTemplateSpec `json:"worker,omitempty"`
	// Fuse configures the FUSE client.
	// +optional
	Fuse JindoFuseSpec `json:"fuse,omitempty"`
	// Properties are JindoCache properties for every component.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// TieredStore is the workers' cache layout; Jindo uses levels[0].
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
	// User is the user name passed to JindoCache.
	// +optional
	User string `json:"user,omitempty"`
	// HadoopConfig names a ConfigMap holding Hadoop configuration files.
	// +optional
	HadoopConfig string `json:"hadoopConfig,omitempty"`
	// Secret names a Secret with the engine's credentials.
	// +optional
	Secret string `json:"secret,omitempty"`
	// Labels are added to every engine pod (deprecated; use PodMetadata).
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// PodMetadata adds labels and annotations to every engine pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// LogConfig configures logging.
	// +optional
	LogConfig map[string]string `json:"logConfig,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkmode,omitempty"`
	// CleanCachePolicy bounds cache clean-up.
	// +kubebuilder:default={}
	// +optional
	CleanCachePolicy CleanCachePolicy `json:"cleanCachePolicy,omitempty"`
	// Volumes are added to the engine's pods.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// ImagePullSecrets are used to pull every engine image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// JindoRuntime caches a Dataset with JindoCache.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentWorkerNumberScheduled,selectorpath=.status.selector
// +kubebuilder:resource:scope=Namespaced,shortName=jindo,categories=fluid
// +kubebuilder:printcolumn:name="Ready Masters",type="integer",JSONPath=`.status.masterNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Masters",type="integer",JSONPath=`.status.desiredMasterNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Master Phase",type="string",JSONPath=`.status.masterPhase`
// +kubebuilder:printcolumn:name="Ready Workers",type="integer",JSONPath=`.status.workerNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Workers",type="integer",JSONPath=`.status.desiredWorkerNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Worker Phase",type="string",JSONPath=`.status.workerPhase`
// +kubebuilder:printcolumn:name="Ready Fuses",type="integer",JSONPath=`.status.fuseNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Fuses",type="integer",JSONPath=`.status.desiredFuseNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Fuse Phase",type="string",JSONPath=`.status.fusePhase`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type JindoRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JindoRuntimeSpec `json:"spec,omitempty"`
	Status RuntimeStatus    `json:"status,omitempty"`
}

// JindoRuntimeList is a list of JindoRuntimes.
//
// +kubebuilder:object:root=true
type JindoRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []JindoRuntime `json:"items"`
}

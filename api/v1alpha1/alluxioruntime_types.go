package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AlluxioCompTemplateSpec configures one Alluxio component (master, worker,
// job master, job worker or API gateway).
type AlluxioCompTemplateSpec struct {
	// Replicas is the number of pods; only masters honour values above 1.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// JvmOptions are extra JVM flags.
	// +optional
	JvmOptions []string `json:"jvmOptions,omitempty"`
	// Properties are alluxio-site properties.
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
	// Enabled turns an optional component on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// NodeSelector constrains the component's pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// PodMetadata adds labels and annotations to the pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// ImagePullSecrets are used to pull the component's image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// AlluxioFuseSpec configures Alluxio's FUSE client.
type AlluxioFuseSpec struct {
	// Image is the FUSE image repository.
	// +optional
	Image string `json:"image,omitempty"`
	// ImageTag is the FUSE image tag.
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
	// ImagePullPolicy is one of Always, Never or IfNotPresent.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// JvmOptions are extra JVM flags.
	// +optional
	JvmOptions []string `json:"jvmOptions,omitempty"`
	// Properties are alluxio-site properties for FUSE.
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
	// CleanPolicy says when a node's FUSE pod may be removed.
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// PodMetadata adds labels and annotations to the FUSE pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// ImagePullSecrets are used to pull the FUSE image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// AlluxioData configures data replication inside Alluxio.
type AlluxioData struct {
	// Replicas is the number of copies of each block.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Pin keeps the dataset's files in the cache.
	// +optional
	Pin bool `json:"pin,omitempty"`
}

// AlluxioRuntimeSpec is the desired state of an Alluxio cache.
type AlluxioRuntimeSpec struct {
	// AlluxioVersion is the image of the master and workers.
	// +optional
	AlluxioVersion VersionSpec `json:"alluxioVersion,omitempty"`
	// Master configures the masters.
	// +optional
	Master AlluxioCompTemplateSpec `json:"master,omitempty"`
	// JobMaster configures the job masters.
	// +optional
	JobMaster AlluxioCompTemplateSpec `json:"jobMaster,omitempty"`
	// Worker configures the workers.
	// +optional
	Worker AlluxioCompTemplateSpec `json:"worker,omitempty"`
	// JobWorker configures the job workers.
	// +optional
	JobWorker AlluxioCompTemplateSpec `json:"jobWorker,omitempty"`
	// APIGateway configures the REST gateway.
	// +optional
	APIGateway AlluxioCompTemplateSpec `json:"apiGateway,omitempty"`
	// InitUsers configures the init container that creates users.
	// +optional
	InitUsers InitUsersSpec `json:"initUsers,omitempty"`
	// Fuse configures the FUSE client.
	// +optional
	Fuse AlluxioFuseSpec `json:"fuse,omitempty"`
	// Properties are alluxio-site properties for every component.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// JvmOptions are JVM flags for every component.
	// +optional
	JvmOptions []string `json:"jvmOptions,omitempty"`
	// TieredStore is the workers' cache layout.
	// +optional
	TieredStore TieredStore `json:"tieredstore,omitempty"`
	// Data configures replication.
	// +optional
	Data AlluxioData `json:"data,omitempty"`
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
	// HadoopConfig names a ConfigMap holding Hadoop configuration files.
	// +optional
	HadoopConfig string `json:"hadoopConfig,omitempty"`
	// Volumes are added to the engine's pods.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// PodMetadata adds labels and annotations to every engine pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Management groups maintenance settings.
	// +kubebuilder:default={}
	// +optional
	Management RuntimeManagement `json:"management,omitempty"`
	// ImagePullSecrets are used to pull every engine image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// AlluxioRuntime caches a Dataset with Alluxio.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentWorkerNumberScheduled,selectorpath=.status.selector
// +kubebuilder:resource:scope=Namespaced,shortName=alluxio,categories=fluid
// +kubebuilder:printcolumn:name="Ready Masters",type="integer",JSONPath=`.status.masterNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Masters",type="integer",JSONPath=`.status.desiredMasterNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Master Phase",type="string",JSONPath=`.status.masterPhase`
// +kubebuilder:printcolumn:name="Ready Workers",type="integer",JSONPath=`.status.workerNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Workers",type="integer",JSONPath=`.status.desiredWorkerNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Worker Phase",type="string",JSONPath=`.status.workerPhase`
// +kubebuilder:printcolumn:name="Ready Fuses",type="integer",JSONPath=`.status.fuseNumberReady`,priority=10
// +kubebuilder:printcolumn:name="Desired Fuses",type="integer",JSONPath=`.status.desiredFuseNumberScheduled`,priority=10
// +kubebuilder:printcolumn:name="Fuse Phase",type="string",JSONPath=`.status.fusePhase`
// +kubebuilder:printcolumn:name="API Gateway",type="string",JSONPath=`.status.apiGateway.endpoint`,priority=10
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type AlluxioRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AlluxioRuntimeSpec `json:"spec,omitempty"`
	Status RuntimeStatus      `json:"status,omitempty"`
}

// AlluxioRuntimeList is a list of AlluxioRuntimes.
//
// +kubebuilder:object:root=true
type AlluxioRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AlluxioRuntime `json:"items"`
}

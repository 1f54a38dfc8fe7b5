package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The VineyardRuntime kind is served with Fluid's schema and refused
// (refused_kinds.go): these types carry the fields so that Fluid's
// manifests meet the refusal, not a pruned or unknown field.

// VineyardCompTemplateSpec configures Vineyard's master (etcd) or its
// workers (vineyardd).
type VineyardCompTemplateSpec struct {
	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Image is the image repository.
	// +optional
	Image string `json:"image,omitempty"`
	// ImageTag is the image tag.
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
	// ImagePullPolicy is one of Always, Never or IfNotPresent.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// NodeSelector constrains the component's pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Ports maps port names to numbers.
	// +optional
	Ports map[string]int `json:"ports,omitempty"`
	// Env adds environment variables.
	// +optional
	Env map[string]string `json:"env,omitempty"`
	// Options are Vineyard options of the component.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
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

// VineyardExternalEndpoint is an etcd cluster Vineyard uses instead of
// running its own master.
type VineyardExternalEndpoint struct {
	// URI is the etcd endpoint.
	// +optional
	URI string `json:"uri"`
	// EncryptOptions pass credentials by Secret reference.
	// +optional
	EncryptOptions []EncryptOption `json:"encryptOptions,omitempty"`
	// Options are options of the connection.
	// +optional
	Options map[string]string `json:"options,omitempty"`
}

// VineyardMasterSpec configures Vineyard's master, or the external etcd
// that replaces it.
type VineyardMasterSpec struct {
	VineyardCompTemplateSpec `json:",inline"`
	// ExternalEndpoint, when set, is used instead of a master.
	// +optional
	ExternalEndpoint VineyardExternalEndpoint `json:"endpoint,omitempty"`
}

// VineyardClientSocketSpec configures the pods that hand Vineyard's
// socket to applications (Fluid's "fuse" of this runtime).
type VineyardClientSocketSpec struct {
	// Image is the image repository.
	// +optional
	Image string `json:"image,omitempty"`
	// ImageTag is the image tag.
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
	// ImagePullPolicy is one of Always, Never or IfNotPresent.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// Env adds environment variables.
	// +optional
	Env map[string]string `json:"env,omitempty"`
	// CleanPolicy says when a node's pod is removed.
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
	// PodMetadata adds labels and annotations to the pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Options are vineyardd options.
	// +optional
	Options map[string]string `json:"options,omitempty"`
}

// VineyardRuntimeSpec is the desired state of a Vineyard cache.
type VineyardRuntimeSpec struct {
	// Master configures the master (etcd).
	// +optional
	Master VineyardMasterSpec `json:"master,omitempty"`
	// Worker configures the workers (vineyardd).
	// +optional
	Worker VineyardCompTemplateSpec `json:"worker,omitempty"`
	// Replicas is the number of workers.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Fuse configures the client socket pods.
	// +optional
	Fuse VineyardClientSocketSpec `json:"fuse,omitempty"`
	// TieredStore is the workers' cache layout.
	// +optional
	TieredStore TieredStore `json:"tieredstore,omitempty"`
	// DisablePrometheus turns metrics off.
	// +optional
	DisablePrometheus bool `json:"disablePrometheus,omitempty"`
	// PodMetadata adds labels and annotations to every pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Volumes are added to the master and worker pods.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
}

// VineyardRuntime is Fluid's runtime for the Vineyard in-memory object
// store. Sluice serves it but does not run it: every create, and every
// change of spec, is refused (refused_kinds.go).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentWorkerNumberScheduled,selectorpath=.status.selector
// +kubebuilder:resource:scope=Namespaced,shortName=v6d,categories=fluid
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() && has(self.spec) == has(oldSelf.value().spec) && (!has(self.spec) || self.spec == oldSelf.value().spec)",optionalOldSelf=true,reason=FieldValueForbidden,fieldPath=".spec",message="VineyardRuntime is not supported by Sluice yet: Sluice runs AlluxioRuntime, JindoRuntime, JuiceFSRuntime and ThinRuntime (docs/compatibility.md)"
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
type VineyardRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VineyardRuntimeSpec `json:"spec,omitempty"`
	Status RuntimeStatus       `json:"status,omitempty"`
}

// VineyardRuntimeList is a list of VineyardRuntimes.
//
// +kubebuilder:object:root=true
type VineyardRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VineyardRuntime `json:"items"`
}

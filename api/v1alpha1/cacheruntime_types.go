package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The CacheRuntime kind, Fluid's generic runtime whose engine a
// CacheRuntimeClass describes, is served with Fluid's schema and refused
// (refused_kinds.go): these types carry the fields so that Fluid's
// manifests meet the refusal, not a pruned or unknown field.

// CacheRuntimeComponentSpec is what the master, the workers and the
// client of a CacheRuntime have in common.
type CacheRuntimeComponentSpec struct {
	// Disabled runs no pods of the component.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// RuntimeVersion is the component's image.
	// +optional
	RuntimeVersion VersionSpec `json:"runtimeVersion,omitempty"`
	// Options are the engine's options for the component.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// PodMetadata adds labels and annotations to the pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Env adds environment variables.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// VolumeMounts mount spec.volumes into the container.
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	// Args are the container's arguments.
	// +listType=atomic
	// +optional
	Args []string `json:"args,omitempty"`
	// NodeSelector constrains the component's pods to matching nodes.
	// +mapType=atomic
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Tolerations are the pods' tolerations.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// CacheRuntimeMasterSpec configures a CacheRuntime's master.
type CacheRuntimeMasterSpec struct {
	CacheRuntimeComponentSpec `json:",inline"`
	// Replicas is the number of masters.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// CacheRuntimeWorkerSpec configures a CacheRuntime's workers.
type CacheRuntimeWorkerSpec struct {
	CacheRuntimeComponentSpec `json:",inline"`
	// Replicas is the number of workers.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// TieredStore is the workers' cache layout.
	// +optional
	TieredStore CacheTieredStore `json:"tieredStore,omitempty"`
}

// CacheRuntimeClientSpec configures a CacheRuntime's client (FUSE).
type CacheRuntimeClientSpec struct {
	CacheRuntimeComponentSpec `json:",inline"`
	// TieredStore is the client's cache layout.
	// +optional
	TieredStore CacheTieredStore `json:"tieredStore,omitempty"`
	// CleanPolicy says when a node's client pod is removed.
	// +kubebuilder:validation:Enum=OnRuntimeDeleted;OnDemand
	// +kubebuilder:default=OnRuntimeDeleted
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
}

// CacheTieredStore is a CacheRuntime component's cache layout.
type CacheTieredStore struct {
	// Levels are the cache tiers, fastest first.
	// +optional
	Levels []CacheTieredStoreLevel `json:"levels,omitempty"`
}

// CacheTieredStoreLevel is one cache tier: one of processMemory, emptyDir
// or hostPath, with its watermarks.
type CacheTieredStoreLevel struct {
	// ProcessMemory caches in the process's memory.
	// +optional
	ProcessMemory *CacheProcessMemory `json:"processMemory,omitempty"`
	// EmptyDir caches in an emptyDir volume.
	// +optional
	EmptyDir *CacheEmptyDir `json:"emptyDir,omitempty"`
	// HostPath caches in host directories.
	// +optional
	HostPath *CacheHostPath `json:"hostPath,omitempty"`
	// High is the usage ratio that starts eviction.
	// +optional
	High string `json:"high,omitempty"`
	// Low is the usage ratio eviction stops at.
	// +optional
	Low string `json:"low,omitempty"`
}

// CacheProcessMemory is a tier in the process's memory.
type CacheProcessMemory struct {
	// Quota is the tier's size.
	// +kubebuilder:validation:Required
	Quota resource.Quantity `json:"quota"`
}

// CacheHostPath is a tier in host directories.
type CacheHostPath struct {
	// Paths are the host directories.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:Required
	Paths []string `json:"paths"`
	// Quotas are the sizes of the directories, one per path.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:Required
	Quotas []resource.Quantity `json:"quotas"`
	// Type is the hostPath volume type.
	// +optional
	Type *corev1.HostPathType `json:"type,omitempty"`
}

// CacheEmptyDir is a tier in an emptyDir volume.
type CacheEmptyDir struct {
	// Quota is the tier's size.
	// +kubebuilder:validation:Required
	Quota resource.Quantity `json:"quota"`
	// Medium is the emptyDir medium: "" or Memory.
	// +optional
	Medium corev1.StorageMedium `json:"medium,omitempty"`
}

// CacheRuntimeSpec is the desired state of a CacheRuntime.
type CacheRuntimeSpec struct {
	// RuntimeClassName names the CacheRuntimeClass describing the engine.
	// +kubebuilder:validation:Required
	RuntimeClassName string `json:"runtimeClassName"`
	// Master configures the master.
	// +optional
	Master CacheRuntimeMasterSpec `json:"master,omitempty"`
	// Worker configures the workers.
	// +optional
	Worker CacheRuntimeWorkerSpec `json:"worker,omitempty"`
	// Client configures the client.
	// +optional
	Client CacheRuntimeClientSpec `json:"client,omitempty"`
	// Options are the engine's options for every component.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// PodMetadata adds labels and annotations to every pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
	// ImagePullSecrets are used to pull every image.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Volumes are added to the components' pods.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
}

// CacheRuntimeComponentStatus is the observed state of one component.
type CacheRuntimeComponentStatus struct {
	// Phase summarises the component.
	// +kubebuilder:validation:Required
	Phase RuntimePhase `json:"phase"`
	// Reason explains Phase.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message explains Phase to a person.
	// +optional
	Message string `json:"message,omitempty"`
	// ReadyReplicas is the number of ready pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// CurrentReplicas is the number of pods.
	// +optional
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// DesiredReplicas is the number of pods wanted.
	// +optional
	DesiredReplicas int32 `json:"desiredReplicas,omitempty"`
	// UnavailableReplicas is the number of unavailable pods.
	// +optional
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty"`
	// AvailableReplicas is the number of available pods.
	// +optional
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
}

// CacheRuntimeStatus is the observed state of a CacheRuntime.
type CacheRuntimeStatus struct {
	// ValueFile names the engine's generated configuration.
	// +optional
	ValueFile string `json:"valueFile,omitempty"`
	// SetupDuration is how long the runtime took to become ready.
	// +optional
	SetupDuration string `json:"setupDuration,omitempty"`
	// Conditions are the runtime's conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Selector is the label selector of the worker pods.
	// +optional
	Selector string `json:"selector,omitempty"`
	// CacheAffinity is the topology of the nodes holding the cache.
	// +optional
	CacheAffinity *corev1.NodeAffinity `json:"cacheAffinity,omitempty"`
	// Master is the master's state.
	// +optional
	Master CacheRuntimeComponentStatus `json:"master,omitempty"`
	// Worker is the workers' state.
	// +optional
	Worker CacheRuntimeComponentStatus `json:"worker,omitempty"`
	// Client is the clients' state.
	// +optional
	Client CacheRuntimeComponentStatus `json:"client,omitempty"`
	// MountTime is when the under-filesystems were last mounted.
	// +optional
	MountTime *metav1.Time `json:"mountTime,omitempty"`
}

// CacheRuntime is Fluid's generic runtime, running the engine its
// CacheRuntimeClass describes. Sluice serves it but does not run it: every
// create, and every change of spec, is refused (refused_kinds.go).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=fluid
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() && has(self.spec) == has(oldSelf.value().spec) && (!has(self.spec) || self.spec == oldSelf.value().spec)",optionalOldSelf=true,reason=FieldValueForbidden,fieldPath=".spec",message="CacheRuntime is not supported by Sluice yet: Sluice runs AlluxioRuntime, JindoRuntime, JuiceFSRuntime and ThinRuntime (docs/compatibility.md)"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=`.status.phase`
type CacheRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CacheRuntimeSpec   `json:"spec,omitempty"`
	Status CacheRuntimeStatus `json:"status,omitempty"`
}

// CacheRuntimeList is a list of CacheRuntimes.
//
// +kubebuilder:object:root=true
type CacheRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CacheRuntime `json:"items"`
}

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The EFCRuntime kind is served with Fluid's schema and refused
// (refused_kinds.go): these types carry the fields so that Fluid's
// manifests meet the refusal, not a pruned or unknown field.

// EFCCompTemplateSpec configures an EFC master or its workers.
type EFCCompTemplateSpec struct {
	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Version is the component's image.
	// +optional
	Version VersionSpec `json:"version,omitempty"`
	// Properties are EFC properties of the component.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// Ports maps port names to numbers.
	// +optional
	Ports map[string]int `json:"ports,omitempty"`
	// Resources are the container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Disabled runs no pods of the component.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// NodeSelector constrains the component's pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
	// PodMetadata adds labels and annotations to the pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
}

// EFCFuseSpec configures EFC's FUSE client.
type EFCFuseSpec struct {
	// Version is the FUSE image.
	// +optional
	Version VersionSpec `json:"version,omitempty"`
	// Properties are EFC properties of the client.
	// +optional
	Properties map[string]string `json:"properties,omitempty"`
	// Resources are the FUSE container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// NodeSelector constrains the FUSE pods to matching nodes.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// CleanPolicy says when a node's FUSE pod is removed.
	// +optional
	CleanPolicy FuseCleanPolicy `json:"cleanPolicy,omitempty"`
	// NetworkMode chooses host or container networking.
	// +optional
	NetworkMode NetworkMode `json:"networkMode,omitempty"`
	// PodMetadata adds labels and annotations to the FUSE pods.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
}

// EFCInitFuseSpec is the image that loads EFC's kernel module.
type EFCInitFuseSpec struct {
	// Version is the image.
	// +optional
	Version VersionSpec `json:"version,omitempty"`
}

// EFCOSAdvise asks for operating-system tuning.
type EFCOSAdvise struct {
	// OSVersion is the operating system version to tune for.
	// +optional
	OSVersion string `json:"osVersion,omitempty"`
	// Enabled turns the tuning on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
}

// EFCRuntimeSpec is the desired state of an EFC cache.
type EFCRuntimeSpec struct {
	// Master configures the master.
	// +optional
	Master EFCCompTemplateSpec `json:"master,omitempty"`
	// Worker configures the workers.
	// +optional
	Worker EFCCompTemplateSpec `json:"worker,omitempty"`
	// InitFuse configures the kernel-module init step.
	// +optional
	InitFuse EFCInitFuseSpec `json:"initFuse,omitempty"`
	// Fuse configures the FUSE client.
	// +optional
	Fuse EFCFuseSpec `json:"fuse,omitempty"`
	// TieredStore is the workers' cache layout.
	// +optional
	TieredStore TieredStore `json:"tieredstore,omitempty"`
	// Replicas is the number of workers.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// OSAdvise asks for operating-system tuning.
	// +optional
	OSAdvise EFCOSAdvise `json:"osAdvise,omitempty"`
	// CleanCachePolicy bounds cache clean-up.
	// +optional
	CleanCachePolicy CleanCachePolicy `json:"cleanCachePolicy,omitempty"`
	// PodMetadata adds labels and annotations to every pod.
	// +optional
	PodMetadata PodMetadata `json:"podMetadata,omitempty"`
}

// EFCRuntime is Fluid's runtime for Alibaba Cloud's Elastic File Client.
// Sluice serves it but does not run it: every create, and every change of
// spec, is refused (refused_kinds.go).
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.currentWorkerNumberScheduled
// +kubebuilder:resource:scope=Namespaced,shortName=efc,categories=fluid
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() && has(self.spec) == has(oldSelf.value().spec) && (!has(self.spec) || self.spec == oldSelf.value().spec)",optionalOldSelf=true,reason=FieldValueForbidden,fieldPath=".spec",message="EFCRuntime is not supported by Sluice yet: Sluice runs AlluxioRuntime, JindoRuntime, JuiceFSRuntime and ThinRuntime (docs/compatibility.md)"
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
type EFCRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EFCRuntimeSpec `json:"spec,omitempty"`
	Status RuntimeStatus  `json:"status,omitempty"`
}

// EFCRuntimeList is a list of EFCRuntimes.
//
// +kubebuilder:object:root=true
type EFCRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EFCRuntime `json:"items"`
}

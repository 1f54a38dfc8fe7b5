package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The CacheRuntimeClass kind, Fluid's cluster-wide description of a
// generic engine, is served with Fluid's schema and refused
// (refused_kinds.go): these types carry the fields so that Fluid's
// manifests meet the refusal, not a pruned or unknown field. Like Fluid's,
// the kind has no spec: its fields are at the top of the object.

// CacheRuntimeTopology describes the components of an engine.
type CacheRuntimeTopology struct {
	// Master describes the master.
	// +optional
	Master *CacheRuntimeComponentDefinition `json:"master,omitempty"`
	// Worker describes the workers.
	// +optional
	Worker *CacheRuntimeComponentDefinition `json:"worker,omitempty"`
	// Client describes the client.
	// +optional
	Client *CacheRuntimeComponentDefinition `json:"client,omitempty"`
}

// CacheRuntimeComponentDefinition describes one component of an engine.
type CacheRuntimeComponentDefinition struct {
	// Options are the component's default options.
	// +optional
	Options map[string]string `json:"options,omitempty"`
	// Template is the component's pod template.
	// +optional
	Template corev1.PodTemplateSpec `json:"template,omitempty"`
	// Service is the component's Service.
	// +optional
	Service CacheRuntimeComponentService `json:"service,omitempty"`
	// Dependencies are what the component's pods mount.
	// +optional
	Dependencies CacheRuntimeComponentDependencies `json:"dependencies,omitempty"`
	// ExecutionEntries are commands run in the component's pods.
	// +optional
	ExecutionEntries *CacheRuntimeExecutionEntries `json:"executionEntries,omitempty"`
}

// CacheRuntimeExecutionEntries are the commands an engine offers.
type CacheRuntimeExecutionEntries struct {
	// MountUFS mounts the under-filesystems.
	// +optional
	MountUFS *CacheRuntimeExecutionEntry `json:"mountUFS,omitempty"`
	// ReportSummary reports the cache's state.
	// +optional
	ReportSummary *CacheRuntimeExecutionEntry `json:"reportSummary,omitempty"`
}

// CacheRuntimeExecutionEntry is one command.
type CacheRuntimeExecutionEntry struct {
	// Command is the command's argv.
	Command []string `json:"command"`
	// TimeoutSeconds bounds the command's run.
	// +optional
	TimeoutSeconds int32 `json:"timeout,omitempty"`
}

// CacheRuntimeComponentDependencies are what a component's pods mount.
type CacheRuntimeComponentDependencies struct {
	// SecretMount says whether the Dataset's encrypt-option Secrets are
	// mounted.
	// +optional
	SecretMount *CacheRuntimeSecretMount `json:"secretMount,omitempty"`
	// ExtraResources are ConfigMaps of the class's extraResources mounted.
	// +optional
	ExtraResources *CacheRuntimeExtraResourceMounts `json:"extraResources,omitempty"`
}

// CacheRuntimeSecretMount turns the mount of encrypt-option Secrets on.
type CacheRuntimeSecretMount struct {
	// Enabled mounts them.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
}

// CacheRuntimeExtraResourceMounts are the extra ConfigMaps a component
// mounts.
type CacheRuntimeExtraResourceMounts struct {
	// ConfigMaps are the ConfigMaps and where they are mounted.
	// +optional
	ConfigMaps []CacheRuntimeConfigMapMount `json:"configMaps,omitempty"`
}

// CacheRuntimeConfigMapMount mounts one extra ConfigMap.
type CacheRuntimeConfigMapMount struct {
	// Name is the ConfigMap's name in the class's extraResources.
	// +optional
	Name string `json:"name,omitempty"`
	// MountPath is where it is mounted.
	// +optional
	MountPath string `json:"mountPath,omitempty"`
}

// CacheRuntimeComponentService is a component's Service.
type CacheRuntimeComponentService struct {
	// Headless asks for a headless Service.
	// +optional
	Headless *CacheRuntimeHeadlessService `json:"headless,omitempty"`
}

// CacheRuntimeHeadlessService has no settings.
type CacheRuntimeHeadlessService struct{}

// CacheRuntimeExtraResources are objects created for each runtime.
type CacheRuntimeExtraResources struct {
	// ConfigMaps are created in the runtime's namespace.
	// +optional
	ConfigMaps []CacheRuntimeConfigMap `json:"configMaps,omitempty"`
}

// CacheRuntimeConfigMap is a ConfigMap created for each runtime.
type CacheRuntimeConfigMap struct {
	// Name is the ConfigMap's name.
	// +optional
	Name string `json:"name,omitempty"`
	// Data is its data.
	// +optional
	Data map[string]string `json:"data,omitempty"`
}

// CacheRuntimeDataOperation says how the engine runs a data operation.
type CacheRuntimeDataOperation struct {
	// Name is the operation's kind.
	// +kubebuilder:validation:Enum=DataLoad;DataBackup;DataMigrate;DataProcess
	Name string `json:"name"`
	// Image is the operation's image.
	// +optional
	Image string `json:"image,omitempty"`
	// Command is the operation container's command.
	// +optional
	Command []string `json:"command,omitempty"`
	// Args are its arguments.
	// +optional
	Args []string `json:"args,omitempty"`
}

// CacheRuntimeClass is Fluid's cluster-wide description of an engine that
// CacheRuntimes run. Sluice serves it but does not run it: every create,
// and every change of its fields, is refused (refused_kinds.go).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories=fluid
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() && self.fileSystemType == oldSelf.value().fileSystemType && has(self.topology) == has(oldSelf.value().topology) && (!has(self.topology) || self.topology == oldSelf.value().topology) && has(self.extraResources) == has(oldSelf.value().extraResources) && (!has(self.extraResources) || self.extraResources == oldSelf.value().extraResources) && has(self.dataOperationSpecs) == has(oldSelf.value().dataOperationSpecs) && (!has(self.dataOperationSpecs) || self.dataOperationSpecs == oldSelf.value().dataOperationSpecs)",optionalOldSelf=true,reason=FieldValueForbidden,fieldPath=".fileSystemType",message="CacheRuntimeClass is not supported by Sluice yet: Sluice runs AlluxioRuntime, JindoRuntime, JuiceFSRuntime and ThinRuntime (docs/compatibility.md)"
type CacheRuntimeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// FileSystemType names the engine's file system.
	// +kubebuilder:validation:Required
	FileSystemType string `json:"fileSystemType"`
	// Topology describes the engine's components.
	// +optional
	Topology *CacheRuntimeTopology `json:"topology,omitempty"`
	// ExtraResources are objects created for each runtime.
	// +optional
	ExtraResources CacheRuntimeExtraResources `json:"extraResources,omitempty"`
	// DataOperationSpecs say how the engine runs data operations.
	// +optional
	DataOperationSpecs []CacheRuntimeDataOperation `json:"dataOperationSpecs,omitempty"`
}

// CacheRuntimeClassList is a list of CacheRuntimeClasses.
//
// +kubebuilder:object:root=true
type CacheRuntimeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CacheRuntimeClass `json:"items"`
}

package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// VersionSpec names the container image of an engine component.
type VersionSpec struct {
	// Image is the image repository, without the tag.
	// +optional
	Image string `json:"image,omitempty"`
	// ImageTag is the image tag.
	// +optional
	ImageTag string `json:"imageTag,omitempty"`
	// ImagePullPolicy is one of Always, Never or IfNotPresent.
	// +optional
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
}

// User is the identity that engine processes run as, or that owns a dataset.
type User struct {
	// UID is the numeric user id.
	UID *int64 `json:"uid"`
	// GID is the numeric group id.
	GID *int64 `json:"gid"`
	// UserName is the user's name.
	UserName string `json:"user"`
	// GroupName is the group's name.
	GroupName string `json:"group"`
}

// PodMetadata holds labels and annotations added to the pods of a component.
type PodMetadata struct {
	// Labels are added to the pods.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are added to the pods.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NetworkMode says whether a component uses the host's network namespace.
// The empty value means the engine's default (host network).
// +kubebuilder:validation:Enum=HostNetwork;"";ContainerNetwork
type NetworkMode string

const (
	// HostNetworkMode runs the component in the host's network namespace.
	HostNetworkMode NetworkMode = "HostNetwork"
	// ContainerNetworkMode runs the component in its pod's network namespace.
	ContainerNetworkMode NetworkMode = "ContainerNetwork"
	// DefaultNetworkMode leaves the choice to the engine.
	DefaultNetworkMode NetworkMode = ""
)

// FuseCleanPolicy says when the CSI plugin may stop a node's FUSE pod.
type FuseCleanPolicy string

const (
	// NoneCleanPolicy is the unset value; each engine picks its own default.
	NoneCleanPolicy FuseCleanPolicy = ""
	// OnDemandCleanPolicy removes FUSE from a node once no pod there uses the dataset.
	OnDemandCleanPolicy FuseCleanPolicy = "OnDemand"
	// OnRuntimeDeletedCleanPolicy keeps FUSE until the runtime is deleted.
	OnRuntimeDeletedCleanPolicy FuseCleanPolicy = "OnRuntimeDeleted"
	// OnFuseChangedCleanPolicy restarts FUSE when its spec changes.
	OnFuseChangedCleanPolicy FuseCleanPolicy = "OnFuseChanged"
)

// InitUsersSpec configures the init container that prepares users and groups.
type InitUsersSpec struct {
	VersionSpec `json:",inline"`
	// Env adds environment variables to the init container.
	// +optional
	Env map[string]string `json:"env,omitempty"`
	// Resources are the init container's compute resources.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// CleanCachePolicy bounds how long and how often the controller tries to
// clean a node's cache when the runtime goes away.
type CleanCachePolicy struct {
	// GracePeriodSeconds is how long a clean-up may take.
	// +kubebuilder:default=60
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`
	// MaxRetryAttempts is how many times a failed clean-up is retried.
	// +kubebuilder:default=3
	// +optional
	MaxRetryAttempts *int32 `json:"maxRetryAttempts,omitempty"`
}

// MetadataSyncPolicy says whether file metadata is synced from the
// under-filesystem when the runtime starts.
type MetadataSyncPolicy struct {
	// AutoSync turns automatic metadata sync on or off.
	// +optional
	AutoSync *bool `json:"autoSync,omitempty"`
}

// AutoSyncOr is AutoSync, or def when it is unset: engines differ in their
// default (Fluid syncs Alluxio and JuiceFS metadata unless told not to,
// Thin metadata only when told to).
func (p MetadataSyncPolicy) AutoSyncOr(def bool) bool {
	if p.AutoSync == nil {
		return def
	}
	return *p.AutoSync
}

// RuntimeManagement groups the runtime's maintenance settings.
type RuntimeManagement struct {
	// CleanCachePolicy bounds cache clean-up.
	// +kubebuilder:default={}
	// +optional
	CleanCachePolicy CleanCachePolicy `json:"cleanCachePolicy,omitempty"`
	// MetadataSyncPolicy controls metadata sync.
	// +optional
	MetadataSyncPolicy MetadataSyncPolicy `json:"metadataSyncPolicy,omitempty"`
}

// EncryptOption passes one secret value to an engine by reference; the value
// itself never appears in a Sluice object.
type EncryptOption struct {
	// Name is the option's key as the engine knows it.
	Name string `json:"name"`
	// ValueFrom names the Secret key holding the value.
	// +optional
	ValueFrom EncryptOptionSource `json:"valueFrom,omitempty"`
}

// EncryptOptionSource is where an encrypted option's value comes from.
type EncryptOptionSource struct {
	// SecretKeyRef selects a key of a Secret in the dataset's namespace.
	// +optional
	SecretKeyRef SecretKeySelector `json:"secretKeyRef,omitempty"`
}

// SecretKeySelector selects one key of a Secret.
type SecretKeySelector struct {
	// Name is the Secret's name.
	Name string `json:"name"`
	// Key is the key within the Secret.
	// +optional
	Key string `json:"key,omitempty"`
}

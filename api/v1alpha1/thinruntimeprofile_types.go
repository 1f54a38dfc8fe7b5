package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePublishSecretPolicy says how a ThinRuntime's FUSE pod gets the secret
// that a PV's nodePublishSecretRef names.
// +kubebuilder:validation:Enum=NotMountNodePublishSecret;MountNodePublishSecretIfExists;CopyNodePublishSecretAndMountIfNotExists
type NodePublishSecretPolicy string

const (
	// NotMountNodePublishSecret never mounts the secret.
	NotMountNodePublishSecret NodePublishSecretPolicy = "NotMountNodePublishSecret"
	// MountNodePublishSecretIfExists mounts the secret when it exists.
	MountNodePublishSecretIfExists NodePublishSecretPolicy = "MountNodePublishSecretIfExists"
	// CopyNodePublishSecretAndMountIfNotExists copies the secret into the
	// runtime's namespace when it is missing there, then mounts it.
	CopyNodePublishSecretAndMountIfNotExists NodePublishSecretPolicy = "CopyNodePublishSecretAndMountIfNotExists"
)

// ThinRuntimeProfileSpec describes a FUSE file system that ThinRuntimes use.
type ThinRuntimeProfileSpec struct {
	// FileSystemType names the file system, e.g. nfs or ossfs.
	FileSystemType string `json:"fileSystemType"`
	// ImagePullSecrets are used to pull the profile's images.
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Worker is the default worker of ThinRuntimes using this profile.
	// +optional
	Worker ThinCompTemplateSpec `json:"worker,omitempty"`
	// Fuse is the default FUSE program of ThinRuntimes using this profile.
	// +optional
	Fuse ThinFuseSpec `json:"fuse,omitempty"`
	// Volumes are added to the pods of ThinRuntimes using this profile.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// NodePublishSecretPolicy says how FUSE gets a PV's publish secret.
	// +kubebuilder:default=MountNodePublishSecretIfExists
	// +optional
	NodePublishSecretPolicy NodePublishSecretPolicy `json:"nodePublishSecretPolicy,omitempty"`
}

// ThinRuntimeProfileStatus is empty; it exists for the status subresource.
type ThinRuntimeProfileStatus struct{}

// ThinRuntimeProfile is a cluster-wide template for ThinRuntimes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories=fluid
// +kubebuilder:printcolumn:name="File System",type="string",JSONPath=`.spec.fileSystemType`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type ThinRuntimeProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ThinRuntimeProfileSpec   `json:"spec,omitempty"`
	Status ThinRuntimeProfileStatus `json:"status,omitempty"`
}

// ThinRuntimeProfileList is a list of ThinRuntimeProfiles.
//
// +kubebuilder:object:root=true
type ThinRuntimeProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ThinRuntimeProfile `json:"items"`
}

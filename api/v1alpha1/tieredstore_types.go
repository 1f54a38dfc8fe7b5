package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// MediumType is the storage medium of a cache tier.
// +kubebuilder:validation:Enum=MEM;SSD;HDD
type MediumType string

const (
	// Memory is a RAM-backed tier (usually /dev/shm).
	Memory MediumType = "MEM"
	// SSD is a solid-state disk tier.
	SSD MediumType = "SSD"
	// HDD is a spinning-disk tier.
	HDD MediumType = "HDD"
)

// VolumeType is the kind of volume a tier's paths are mounted from.
// +kubebuilder:validation:Enum=hostPath;emptyDir
type VolumeType string

const (
	// VolumeTypeHostPath mounts the tier's paths from the node.
	VolumeTypeHostPath VolumeType = "hostPath"
	// VolumeTypeEmptyDir gives each worker pod a fresh emptyDir per path.
	VolumeTypeEmptyDir VolumeType = "emptyDir"
)

// TieredStore is the cache layout of a runtime's workers.
type TieredStore struct {
	// Levels are the cache tiers, fastest first.
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Levels []Level `json:"levels,omitempty"`
}

// Level is one cache tier.
//
// The decimal check below accepts "1", "0.95" and ".5"; double() only runs on
// strings that passed it, so a malformed value gets the message, not a CEL error.
//
// +kubebuilder:validation:XValidation:rule="has(self.quota) || has(self.quotaList)",message="tieredstore level: quota or quotaList must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.high) || (self.high.matches('^([0-9]+([.][0-9]*)?|[.][0-9]+)$') && double(self.high) > 0.0 && double(self.high) <= 1.0)",message="tieredstore level: high must be a number in (0,1], e.g. \"0.95\""
// +kubebuilder:validation:XValidation:rule="!has(self.low) || (self.low.matches('^([0-9]+([.][0-9]*)?|[.][0-9]+)$') && double(self.low) > 0.0 && double(self.low) <= 1.0)",message="tieredstore level: low must be a number in (0,1], e.g. \"0.7\""
// +kubebuilder:validation:XValidation:rule="!has(self.high) || !has(self.low) || !self.high.matches('^([0-9]+([.][0-9]*)?|[.][0-9]+)$') || !self.low.matches('^([0-9]+([.][0-9]*)?|[.][0-9]+)$') || double(self.high) > double(self.low)",message="tieredstore level: high must be greater than low"
// +kubebuilder:validation:XValidation:rule="!has(self.quotaList) || self.quotaList.split(',').size() == (has(self.path) ? self.path.split(',').size() : 0)",message="tieredstore level: quotaList must have one entry per path (comma-separated, same count as path)"
type Level struct {
	// MediumType is the tier's medium.
	MediumType MediumType `json:"mediumtype"`

	// VolumeType is how the tier's paths become volumes.
	// +kubebuilder:default=hostPath
	// +optional
	VolumeType VolumeType `json:"volumeType,omitempty"`

	// VolumeSource overrides the generated volume (used with emptyDir).
	// +optional
	VolumeSource corev1.VolumeSource `json:"volumeSource,omitempty"`

	// Path is a comma-separated list of directories for this tier.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Path string `json:"path,omitempty"`

	// Quota is the size of the whole tier, split evenly across its paths.
	// +optional
	Quota *resource.Quantity `json:"quota,omitempty"`

	// QuotaList gives one size per path, comma-separated; it overrides Quota.
	// +kubebuilder:validation:Pattern:="^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?(,(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?)*,?$"
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	QuotaList string `json:"quotaList,omitempty"`

	// High is the usage ratio, in (0,1], above which eviction starts.
	// +kubebuilder:validation:MaxLength=32
	// +optional
	High string `json:"high,omitempty"`

	// Low is the usage ratio, in (0,1], that eviction brings usage down to.
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Low string `json:"low,omitempty"`
}

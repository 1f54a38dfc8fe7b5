package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Keys of a DataBackup's status.infos.
const (
	// BackupLocationPath is the infos key of the backup's path.
	BackupLocationPath = "BackupLocationPath"
	// BackupLocationNodeName is the infos key of the node holding a local backup.
	BackupLocationNodeName = "BackupLocationNodeName"
)

// DataBackupSpec is what a DataBackup saves and where.
type DataBackupSpec struct {
	// Dataset is the name of the Dataset to back up, in the same namespace.
	// +optional
	Dataset string `json:"dataset,omitempty"`
	// BackupPath is a local:// or pvc:// location.
	// +optional
	BackupPath string `json:"backupPath,omitempty"`
	// RunAs is the user the backup runs as.
	// +optional
	RunAs *User `json:"runAs,omitempty"`
	// RunAfter names the operation that must complete first.
	// +optional
	RunAfter *OperationRef `json:"runAfter,omitempty"`
	// TTLSecondsAfterFinished deletes the DataBackup this long after it finishes.
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// DataBackup saves a Dataset's metadata so that it can be restored.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=backup,categories=fluid
// +kubebuilder:printcolumn:name="Dataset",type="string",JSONPath=`.spec.dataset`
// +kubebuilder:printcolumn:name="Phase",type="string",JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Path",type="string",JSONPath=`.status.infos.BackupLocationPath`
// +kubebuilder:printcolumn:name="NodeName",type="string",JSONPath=`.status.infos.BackupLocationNodeName`
// +kubebuilder:printcolumn:name="Duration",type="string",JSONPath=`.status.duration`
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=`.metadata.creationTimestamp`
type DataBackup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DataBackupSpec  `json:"spec,omitempty"`
	Status OperationStatus `json:"status,omitempty"`
}

// DataBackupList is a list of DataBackups.
//
// +kubebuilder:object:root=true
type DataBackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DataBackup `json:"items"`
}

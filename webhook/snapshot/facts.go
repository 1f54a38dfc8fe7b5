package snapshot

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
)

// DatasetVolume is one Pod volume backed by a dataset PVC.
type DatasetVolume struct {
	// Volume is the Pod volume's name.
	Volume string `json:"volume"`
	// Claim is the PVC's name.
	Claim string `json:"claim"`
	// Wrapped: the PVC is not the Dataset's own but the one it wraps (a
	// ThinRuntime Dataset whose one mount is pvc://<Claim>): the Pod is a
	// Pod of the Dataset although it mounts the PVC itself.
	Wrapped bool `json:"wrapped"`
	// Dataset describes the dataset behind the PVC.
	Dataset DatasetFacts `json:"dataset"`
	// Fuse is the runtime's FUSE template, when it has one. It is for the
	// Go mutators only; policies see Dataset.Runtime.Fuse.
	Fuse *FuseTemplate `json:"-"`

	// value is the volume's policy value, computed once and shared by the
	// copies of a remembered volume.
	value *lazyValue
}

type lazyValue struct {
	once sync.Once
	v    ast.Value
	err  error
}

// DatasetFacts is what policies know about a dataset.
type DatasetFacts struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Phase is the Dataset's status.phase ("" when it does not exist).
	Phase string `json:"phase"`
	// Runtime is the bound runtime; empty when none is bound.
	Runtime RuntimeFacts `json:"runtime"`
	// Labels are the dataset's node label keys.
	Labels DatasetLabels `json:"labels"`
	// Localities maps a locality name to the node requirements it stands
	// for: fluid.io/node and fluid.io/fuse, and each node label key of the
	// runtime's cacheAffinity (e.g. topology.kubernetes.io/zone).
	Localities map[string][]corev1.NodeSelectorRequirement `json:"localities"`
	// Volume is where the dataset is mounted on nodes (the PV's attributes).
	Volume VolumeFacts `json:"volume"`
	// Reference is, for a reference dataset (dataset://), the Dataset it
	// references, whose runtime, FUSE and node labels serve it (Runtime,
	// Labels and Localities are that Dataset's); absent for others.
	Reference *ReferenceFacts `json:"reference,omitempty"`
	// Migration is, while a DataMigrate migrates the Dataset (phase
	// DataMigrating), that DataMigrate; absent otherwise.
	Migration *MigrationFacts `json:"migration,omitempty"`
}

// ReferenceFacts is what policies know about the Dataset a reference
// dataset references.
type ReferenceFacts struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// SubPath is the directory of it the reference dataset exposes.
	SubPath string `json:"subPath"`
	// Phase is the referenced Dataset's status.phase ("" when it does not
	// exist).
	Phase string `json:"phase"`
	// FuseSecrets are the Secrets its FUSE container reads, when it is in
	// another namespace: a FUSE sidecar in the reference dataset's
	// namespace reads Secrets of those names there (they are not copied).
	FuseSecrets []string `json:"fuseSecrets"`
}

// RuntimeFacts is what policies know about a dataset's runtime.
type RuntimeFacts struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Fuse says whether the runtime's FUSE DaemonSet exists.
	Fuse bool `json:"fuse"`
	// FuseNodeSelector is the runtime's spec.fuse.nodeSelector.
	FuseNodeSelector map[string]string `json:"fuseNodeSelector"`
	// FuseVolumes are the names of the volumes the FUSE template's
	// container mounts (empty without a FUSE template).
	FuseVolumes []string `json:"fuseVolumes"`
	// FuseRecord says that the FUSE template comes from the controller's
	// record (datav1alpha1.FuseRecord), as it must for a runtime of another
	// namespace than the Pod's; false for one of the Pod's namespace, whose
	// template is its FUSE DaemonSet's.
	FuseRecord bool `json:"fuseRecord"`
	// FuseImage is the image of the FUSE template's container ("" without
	// a FUSE template): what a sidecar runs in the Pod.
	FuseImage string `json:"fuseImage"`
	// CacheAffinity is the runtime's status.cacheAffinity.
	CacheAffinity *corev1.NodeAffinity `json:"cacheAffinity,omitempty"`
}

// DatasetLabels are the node label keys of a dataset.
type DatasetLabels struct {
	// Cache is fluid.io/s-<ns>-<name>.
	Cache string `json:"cache"`
	// Fuse is fluid.io/f-<ns>-<name>.
	Fuse string `json:"fuse"`
	// Sched is the Pod label fluid.io/dataset.<name>.sched.
	Sched string `json:"sched"`
}

// VolumeFacts are the CSI attributes of a dataset's PV.
type VolumeFacts struct {
	FluidPath string `json:"fluidPath"`
	SubPath   string `json:"subPath"`
	MountType string `json:"mountType"`
	// ReadOnly: the PV admits only ReadOnlyMany (the Dataset's
	// accessModes), which the CSI plugin mounts read-only; a FUSE sidecar's
	// hostPath rewrite mounts it read-only too.
	ReadOnly bool `json:"readOnly"`
}

// FuseTemplate is the FUSE container of a runtime and the volumes it mounts,
// taken from the runtime's FUSE DaemonSet.
type FuseTemplate struct {
	Container corev1.Container
	Volumes   []corev1.Volume
}

// Namespace is what policies know about the Pod's namespace.
type Namespace struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`

	// value is the namespace's policy value, computed once and shared by
	// the copies of a remembered namespace.
	value *lazyValue
}

package volume

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// DefaultCapacity is the PV and PVC size when the Dataset does not set
// pvc.fluid.io/resources.requests.storage.
const DefaultCapacity = "100Pi"

// Spec is what the engine says about where the dataset is mounted on nodes.
type Spec struct {
	// FluidPath is the host directory of the FUSE mount.
	FluidPath string
	// MountType is the FUSE file-system type, e.g. fuse.juicefs.
	MountType string
	// RuntimeName and RuntimeNamespace identify the runtime.
	RuntimeName, RuntimeNamespace string
	// CleanPolicy is the runtime's FUSE cleanPolicy.
	CleanPolicy string
	// ClaimUID is the UID of the dataset's PVC when it exists: the PV's
	// claimRef then names it completely, and the PV controller binds the
	// pair without first rewriting the PV.
	ClaimUID types.UID
	// SubPath is the directory of the FUSE mount the PV publishes
	// (fluid_sub_path); "" for the whole mount.
	SubPath string
	// FuseLabelKey is the node label that starts the FUSE serving the PV
	// (mount_pod_node_selector_key); "" is the dataset's own FUSE label. A
	// reference dataset's PV names the referenced dataset's.
	FuseLabelKey string
	// AccessModes are the PV's access modes; nil takes the dataset's
	// (AccessModes).
	AccessModes []corev1.PersistentVolumeAccessMode
	// FuseNodeSelector is the runtime's spec.fuse.nodeSelector: the nodes
	// the FUSE may run on, and so the PV's nodeAffinity (NodeAffinity).
	FuseNodeSelector map[string]string
	// Name is the PV's name and volume handle; "" is Name(ds). An existing
	// PVC's PV is ClaimedName's.
	Name string
	// SkipCheckMountReadyTarget is the runtime's annotation
	// fluid.io/skip-check-mount-ready-target, copied as it is to the PV's
	// attribute of that name (as Fluid does), where the CSI plugin reads
	// it; "" sets none.
	SkipCheckMountReadyTarget string
}

// NodeAffinity is a dataset PV's nodeAffinity for the runtime's FUSE node
// selector, as Fluid writes it: one term requiring each label (In its
// value; keys sorted), nil without a selector. The scheduler then places
// every Pod using the PV on a node where FUSE may run, including Pods the
// webhook did not mutate.
func NodeAffinity(fuseNodeSelector map[string]string) *corev1.VolumeNodeAffinity {
	if len(fuseNodeSelector) == 0 {
		return nil
	}
	var reqs []corev1.NodeSelectorRequirement
	for _, k := range slices.Sorted(maps.Keys(fuseNodeSelector)) {
		reqs = append(reqs, corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{fuseNodeSelector[k]}})
	}
	return &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}}}
}

// Name is the PV name of a dataset, also its CSI volume handle:
// "<namespace>-<name>" as in Fluid when the namespace has no '-', and
// "<namespace>.<name>" otherwise. Fluid's name alone is ambiguous: Dataset
// c of namespace a-b and Dataset b-c of namespace a would share PV a-b-c.
// Neither namespaces (DNS-1123 labels) nor Dataset names (DNS-1035 labels,
// rule name-dns1035) hold a '.', so a name with one splits at it, and one
// without splits at its first '-': no two Datasets share a PV name.
func Name(ds *datav1alpha1.Dataset) string {
	if strings.Contains(ds.Namespace, "-") {
		return ds.Namespace + "." + ds.Name
	}
	return ds.Namespace + "-" + ds.Name
}

// Names are the names a dataset's PV may have: Name, then, when it differs,
// "<namespace>-<name>", the name Sluice gave every dataset's PV before
// (such a PV keeps serving until it is replaced; see ClaimedName).
func Names(ds *datav1alpha1.Dataset) []string {
	if legacy := ds.Namespace + "-" + ds.Name; legacy != Name(ds) {
		return []string{Name(ds), legacy}
	}
	return []string{Name(ds)}
}

// ClaimedName is the name of the PV that pvc, the dataset's PVC, binds:
// its spec.volumeName when that is one of Names (a PVC created before the
// names changed names the PV of the earlier name), else Name.
func ClaimedName(ds *datav1alpha1.Dataset, pvc *corev1.PersistentVolumeClaim) string {
	if n := pvc.Spec.VolumeName; slices.Contains(Names(ds), n) {
		return n
	}
	return Name(ds)
}

// Labels are the labels of a dataset's PV and PVC.
func Labels(ds *datav1alpha1.Dataset) map[string]string {
	key := datav1alpha1.KeyOf(ds)
	return map[string]string{
		datav1alpha1.LabelDatasetID:        key.DatasetID(),
		key.CacheLabelKey():                "true",
		datav1alpha1.LabelDatasetNamespace: ds.Namespace,
		datav1alpha1.LabelDatasetName:      ds.Name,
	}
}

func capacity(ds *datav1alpha1.Dataset) (resource.Quantity, error) {
	s := ds.Annotations[datav1alpha1.AnnotationPVCStorageRequest]
	if s == "" {
		s = DefaultCapacity
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return q, fmt.Errorf("annotation %s=%q is not a quantity: %w", datav1alpha1.AnnotationPVCStorageRequest, s, err)
	}
	return q, nil
}

// AccessModes are the access modes of a dataset's PV and PVC: the
// Dataset's spec.accessModes, ReadOnlyMany by default.
func AccessModes(ds *datav1alpha1.Dataset) []corev1.PersistentVolumeAccessMode {
	if len(ds.Spec.AccessModes) > 0 {
		return ds.Spec.AccessModes
	}
	return []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}
}

// PV returns the dataset's PersistentVolume, bound in advance to its PVC.
func PV(ds *datav1alpha1.Dataset, s Spec) (*corev1.PersistentVolume, error) {
	size, err := capacity(ds)
	if err != nil {
		return nil, err
	}
	fuseKey, modes := s.FuseLabelKey, s.AccessModes
	if fuseKey == "" {
		fuseKey = datav1alpha1.KeyOf(ds).FuseLabelKey()
	}
	if modes == nil {
		modes = AccessModes(ds)
	}
	name := s.Name
	if name == "" {
		name = Name(ds)
	}
	attrs := map[string]string{
		datav1alpha1.VolumeAttrFluidPath:        s.FluidPath,
		datav1alpha1.VolumeAttrMountType:        s.MountType,
		datav1alpha1.VolumeAttrSubPath:          s.SubPath,
		datav1alpha1.VolumeAttrRuntimeNamespace: s.RuntimeNamespace,
		datav1alpha1.VolumeAttrRuntimeName:      s.RuntimeName,
		datav1alpha1.VolumeAttrNodeSelectorKey:  fuseKey,
		datav1alpha1.VolumeAttrFuseCleanPolicy:  s.CleanPolicy,
	}
	if s.SkipCheckMountReadyTarget != "" {
		attrs[datav1alpha1.AnnotationSkipCheckMountReadyTarget] = s.SkipCheckMountReadyTarget
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: Labels(ds), Annotations: map[string]string{datav1alpha1.AnnotationCreatedBy: createdBy}},
		Spec: corev1.PersistentVolumeSpec{
			AccessModes:                   modes,
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			StorageClassName:              "fluid",
			NodeAffinity:                  NodeAffinity(s.FuseNodeSelector),
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: ds.Namespace, Name: ds.Name, UID: s.ClaimUID},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: datav1alpha1.CSIDriverName, VolumeHandle: name, VolumeAttributes: attrs,
			}},
		},
	}, nil
}

// PVC returns the dataset's PersistentVolumeClaim, named after the dataset.
func PVC(ds *datav1alpha1.Dataset) (*corev1.PersistentVolumeClaim, error) {
	size, err := capacity(ds)
	if err != nil {
		return nil, err
	}
	sc := "fluid"
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: ds.Namespace, Labels: Labels(ds), Annotations: map[string]string{datav1alpha1.AnnotationCreatedBy: createdBy}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      AccessModes(ds),
			StorageClassName: &sc,
			VolumeName:       Name(ds),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}, nil
}

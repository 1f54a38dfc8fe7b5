package webhook

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// claimLabels are the labels of a PVC the webhook reads
// (snapshot.DatasetOfClaim, and the wrap mark of a PVC a Dataset wraps).
var claimLabels = []string{datav1alpha1.LabelDatasetID, datav1alpha1.LabelDatasetNamespace, datav1alpha1.LabelDatasetName,
	datav1alpha1.LabelWrappedByDataset}

// trimClaim is the part of a dataset PVC the webhook reads: its identity
// (the gatherer's memo keys on UID and resourceVersion), its deletion, the
// dataset labels (claimLabels) and the volume it names; no annotation,
// whose values (up to 256 KiB) the PVC's author chooses. The cache
// selects PVCs by a label any tenant may set (a claim on another
// namespace's dataset is one the tenant creates), so what a PVC may hold
// beyond that, up to 1.5 MiB of annotations, labels and spec, is not
// kept: a cached PVC takes about 1 KB whatever its author put in it
// (audit N9; docs/security.md).
func trimClaim(obj any) (any, error) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return stripManagedFields(obj)
	}
	out := &corev1.PersistentVolumeClaim{
		TypeMeta:   pvc.TypeMeta,
		ObjectMeta: identity(&pvc.ObjectMeta, claimLabels),
		Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: pvc.Spec.VolumeName},
	}
	return out, nil
}

// identity is the part of an object's metadata a trimmed cached object
// keeps: its identity (the gatherer's memos key on UID and
// resourceVersion), its deletion and the labels listed.
func identity(m *metav1.ObjectMeta, labels []string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion,
		Generation: m.Generation, CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		Labels: keep(m.Labels, labels)}
}

// stripManagedFields is the webhook cache's default transform: no object
// is kept with its managedFields, which the webhook never reads.
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// keep returns the entries of m whose keys are listed, nil when none is.
func keep(m map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

package snapshot

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// pvBelongsTo reports whether pv is the PV of dataset ds, by its
// dataset.sluice.io namespace and name labels, which Sluice sets on every
// dataset PV. fluid.io/dataset-id, "<namespace>-<name>", is ambiguous
// (Dataset c of namespace a-b and Dataset b-c of namespace a share a-b-c),
// so it decides only for a PV that has neither label (one labelled the
// Fluid way only).
func pvBelongsTo(pv *corev1.PersistentVolume, ds types.NamespacedName) bool {
	l := pv.Labels
	ns, name := l[datav1alpha1.LabelDatasetNamespace], l[datav1alpha1.LabelDatasetName]
	if ns == "" && name == "" {
		return l[datav1alpha1.LabelDatasetID] == ds.Namespace+"-"+ds.Name
	}
	return ns == ds.Namespace && name == ds.Name
}

// pvOwnerNote says, for a denial, which dataset a PV's labels name.
func pvOwnerNote(pv *corev1.PersistentVolume) string {
	l := pv.Labels
	return fmt.Sprintf("%s=%q, %s=%q, %s=%q", datav1alpha1.LabelDatasetNamespace, l[datav1alpha1.LabelDatasetNamespace],
		datav1alpha1.LabelDatasetName, l[datav1alpha1.LabelDatasetName], datav1alpha1.LabelDatasetID, l[datav1alpha1.LabelDatasetID])
}

package enginetest

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// RunAfterAffinity is the affinity the controller derives from a runAfter
// Require strategy: the node the previous operation ran on (node-7).
var RunAfterAffinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
	NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-7"}}}}}}}}

// DataLoad is the DataLoad "warm" of Dataset team-a/imagenet with every
// field at its default.
func DataLoad() *datav1alpha1.DataLoad {
	return &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: "warm", Namespace: "team-a"},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "imagenet", Namespace: "team-a"}}}
}

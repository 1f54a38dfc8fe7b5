package snapshot

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// localities maps each locality name to the node requirements it stands for.
// fluid.io/node and fluid.io/fuse are the dataset's cache and FUSE labels.
// Every key of the runtime's required cacheAffinity is a locality too; when
// a key appears in several terms (which are OR-ed), its In values are merged
// into one requirement, so requiring the locality never narrows the terms.
func localities(l DatasetLabels, cacheAffinity *corev1.NodeAffinity) map[string][]corev1.NodeSelectorRequirement {
	out := map[string][]corev1.NodeSelectorRequirement{
		datav1alpha1.LabelNodeLocality: {{Key: l.Cache, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}},
		datav1alpha1.LabelFuseLocality: {{Key: l.Fuse, Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}},
	}
	if cacheAffinity == nil || cacheAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return out
	}
	for _, term := range cacheAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Key == datav1alpha1.LabelNodeLocality || e.Key == datav1alpha1.LabelFuseLocality {
				continue
			}
			existing, ok := out[e.Key]
			switch {
			case !ok:
				out[e.Key] = []corev1.NodeSelectorRequirement{*e.DeepCopy()}
			case e.Operator == corev1.NodeSelectorOpIn && existing[0].Operator == corev1.NodeSelectorOpIn:
				for _, v := range e.Values {
					if !slices.Contains(existing[0].Values, v) {
						existing[0].Values = append(existing[0].Values, v)
					}
				}
			}
		}
	}
	return out
}

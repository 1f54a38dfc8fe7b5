package affinity

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Mutator applies decision.Affinity.
type Mutator struct{}

// Name implements mutating.Mutator.
func (Mutator) Name() string { return "affinity" }

// Mutate implements mutating.Mutator.
func (Mutator) Mutate(pod *corev1.Pod, d *decision.Mutating, _ []snapshot.DatasetVolume) error {
	Merge(pod, d.Affinity)
	return nil
}

// Merge merges a into the Pod's node affinity. The required terms become
// (T1 or … or Tn) and (D1 or … or Dk) and R1 and … and Rm, with T the
// Pod's terms, D a.RequiredTerms and R a.Required: a term's own
// requirements are kept in every term made from it.
func Merge(pod *corev1.Pod, a decision.Affinity) {
	if len(a.Required) == 0 && len(a.RequiredTerms) == 0 && len(a.Preferred) == 0 {
		return
	}
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &corev1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := pod.Spec.Affinity.NodeAffinity
	if len(a.RequiredTerms) > 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = andOneOf(na.RequiredDuringSchedulingIgnoredDuringExecution, a.RequiredTerms)
	}
	if len(a.Required) > 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = andRequirements(na.RequiredDuringSchedulingIgnoredDuringExecution, a.Required)
	}
	// Heaviest preference first, so that the Pod reads in priority order;
	// the policy's set order decides among equal weights.
	preferred := slices.Clone(a.Preferred)
	slices.SortStableFunc(preferred, func(x, y corev1.PreferredSchedulingTerm) int { return cmp.Compare(y.Weight, x.Weight) })
	for i := range preferred {
		p := &preferred[i]
		if !containsPreferred(na.PreferredDuringSchedulingIgnoredDuringExecution, p) {
			na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{})
			p.DeepCopyInto(&na.PreferredDuringSchedulingIgnoredDuringExecution[len(na.PreferredDuringSchedulingIgnoredDuringExecution)-1])
		}
	}
}

// andRequirements returns a selector equivalent to sel AND every requirement
// in reqs. Node-selector terms are OR-ed, so each requirement is added to
// every term; a missing or empty selector becomes one term of reqs.
func andRequirements(sel *corev1.NodeSelector, reqs []corev1.NodeSelectorRequirement) *corev1.NodeSelector {
	if sel == nil || len(sel.NodeSelectorTerms) == 0 {
		term := corev1.NodeSelectorTerm{}
		for i := range reqs {
			term.MatchExpressions = appendMissing(term.MatchExpressions, &reqs[i])
		}
		return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	}
	for i := range sel.NodeSelectorTerms {
		for j := range reqs {
			sel.NodeSelectorTerms[i].MatchExpressions = appendMissing(sel.NodeSelectorTerms[i].MatchExpressions, &reqs[j])
		}
	}
	return sel
}

// appendMissing and containsPreferred compare through pointers: DeepEqual
// of two pointers compares what they point to, without copying both
// structs to the heap as passing them by value does.
func appendMissing(exprs []corev1.NodeSelectorRequirement, r *corev1.NodeSelectorRequirement) []corev1.NodeSelectorRequirement {
	for i := range exprs {
		if equality.Semantic.DeepEqual(&exprs[i], r) {
			return exprs
		}
	}
	exprs = append(exprs, corev1.NodeSelectorRequirement{})
	r.DeepCopyInto(&exprs[len(exprs)-1])
	return exprs
}

func containsPreferred(terms []corev1.PreferredSchedulingTerm, p *corev1.PreferredSchedulingTerm) bool {
	for i := range terms {
		if equality.Semantic.DeepEqual(&terms[i], p) {
			return true
		}
	}
	return false
}

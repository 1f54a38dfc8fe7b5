package dataop

import (
	corev1 "k8s.io/api/core/v1"
)

// MergeAffinity is the affinity a pod must satisfy to satisfy both a and
// b. Required node affinity is a disjunction of terms, each a conjunction,
// so (a1 or a2) and (b1 or b2) becomes the terms a1∧b1, a1∧b2, a2∧b1 and
// a2∧b2: every term of one side is ANDed with every term of the other. A
// side without required terms constrains nothing. Preferred terms, and pod
// (anti-)affinity terms, which hold together already, are appended. Neither
// argument is modified; nil and nil is nil.
func MergeAffinity(a, b *corev1.Affinity) *corev1.Affinity {
	if a == nil && b == nil {
		return nil
	}
	if a == nil {
		return b.DeepCopy()
	}
	if b == nil {
		return a.DeepCopy()
	}
	a, b = a.DeepCopy(), b.DeepCopy()
	return &corev1.Affinity{
		NodeAffinity:    mergeNodeAffinity(a.NodeAffinity, b.NodeAffinity),
		PodAffinity:     mergePodAffinity(a.PodAffinity, b.PodAffinity),
		PodAntiAffinity: mergePodAntiAffinity(a.PodAntiAffinity, b.PodAntiAffinity),
	}
}

func mergeNodeAffinity(a, b *corev1.NodeAffinity) *corev1.NodeAffinity {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  andSelectors(a.RequiredDuringSchedulingIgnoredDuringExecution, b.RequiredDuringSchedulingIgnoredDuringExecution),
		PreferredDuringSchedulingIgnoredDuringExecution: append(a.PreferredDuringSchedulingIgnoredDuringExecution, b.PreferredDuringSchedulingIgnoredDuringExecution...),
	}
}

// andSelectors is the node selector matching nodes both a and b match.
func andSelectors(a, b *corev1.NodeSelector) *corev1.NodeSelector {
	if a == nil || len(a.NodeSelectorTerms) == 0 {
		return b
	}
	if b == nil || len(b.NodeSelectorTerms) == 0 {
		return a
	}
	out := &corev1.NodeSelector{}
	for _, ta := range a.NodeSelectorTerms {
		for _, tb := range b.NodeSelectorTerms {
			t := ta.DeepCopy()
			t.MatchExpressions = append(t.MatchExpressions, tb.DeepCopy().MatchExpressions...)
			t.MatchFields = append(t.MatchFields, tb.DeepCopy().MatchFields...)
			out.NodeSelectorTerms = append(out.NodeSelectorTerms, *t)
		}
	}
	return out
}

func mergePodAffinity(a, b *corev1.PodAffinity) *corev1.PodAffinity {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  append(a.RequiredDuringSchedulingIgnoredDuringExecution, b.RequiredDuringSchedulingIgnoredDuringExecution...),
		PreferredDuringSchedulingIgnoredDuringExecution: append(a.PreferredDuringSchedulingIgnoredDuringExecution, b.PreferredDuringSchedulingIgnoredDuringExecution...),
	}
}

func mergePodAntiAffinity(a, b *corev1.PodAntiAffinity) *corev1.PodAntiAffinity {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  append(a.RequiredDuringSchedulingIgnoredDuringExecution, b.RequiredDuringSchedulingIgnoredDuringExecution...),
		PreferredDuringSchedulingIgnoredDuringExecution: append(a.PreferredDuringSchedulingIgnoredDuringExecution, b.PreferredDuringSchedulingIgnoredDuringExecution...),
	}
}

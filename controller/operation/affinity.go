package operation

import (
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Node label keys an operation's status.nodeAffinity records, as Fluid's
// dataflow does.
const (
	labelHostname = "kubernetes.io/hostname"
	labelRegion   = "topology.kubernetes.io/region"
	labelZone     = "topology.kubernetes.io/zone"
)

// nodeAffinityOf is where a pod ran, for the operations after it: one
// required term matching the node by name (kubernetes.io/hostname), its
// region and zone, the value the node has of every label key in exposed
// (the operation's affinity.dataflow.fluid.io/labels, dataflowLabels) and
// of every key the pod's own node affinity named (a custom topology label
// the next operation may require or prefer).
func nodeAffinityOf(pod *corev1.Pod, node *corev1.Node, exposed []string) *corev1.NodeAffinity {
	in := func(key, value string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}
	}
	exprs := []corev1.NodeSelectorRequirement{in(labelHostname, node.Name)}
	seen := map[string]bool{labelHostname: true}
	add := func(key string) {
		if v, ok := node.Labels[key]; ok && !seen[key] {
			seen[key] = true
			exprs = append(exprs, in(key, v))
		}
	}
	add(labelRegion)
	add(labelZone)
	for _, key := range exposed {
		add(key)
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			for _, e := range t.Preference.MatchExpressions {
				add(e.Key)
			}
		}
		if req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			for _, t := range req.NodeSelectorTerms {
				for _, e := range t.MatchExpressions {
					add(e.Key)
				}
			}
		}
	}
	return &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}},
	}}
}

// dataflowLabels are the node label keys an operation's
// affinity.dataflow.fluid.io/labels annotation names (comma separated,
// blanks skipped).
func dataflowLabels(annotations map[string]string) []string {
	return datav1alpha1.SplitList(annotations[datav1alpha1.AnnotationDataflowAffinityLabels])
}

// affinityFor is the affinity an operation gets from the placement of the
// one it follows (ran, its status.nodeAffinity), by its affinityStrategy:
// Require adds the requirements on the keys of strategy.requires (default
// the node), Prefer a preferred term per key of strategy.prefers (default
// the node, weight 100). A preferred key the earlier operation did not
// record is skipped, as Fluid does; a required one is returned in missing
// (Fluid drops it, which would run the operation anywhere). Nil when there
// is nothing to add, and when the earlier operation recorded no placement.
func affinityFor(strategy datav1alpha1.AffinityStrategy, ran *corev1.NodeAffinity) (aff *corev1.Affinity, missing []string) {
	if ran == nil || ran.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(ran.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	recorded := map[string]corev1.NodeSelectorRequirement{}
	for _, e := range ran.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions {
		recorded[e.Key] = e
	}
	switch strategy.Policy {
	case datav1alpha1.RequireAffinityStrategy:
		requires := strategy.Requires
		if len(requires) == 0 {
			requires = []datav1alpha1.Require{{Name: labelHostname}}
		}
		var exprs []corev1.NodeSelectorRequirement
		for _, r := range requires {
			if e, ok := recorded[r.Name]; ok {
				exprs = append(exprs, *e.DeepCopy())
			} else {
				missing = append(missing, r.Name)
			}
		}
		if len(missing) > 0 || len(exprs) == 0 {
			return nil, missing
		}
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}},
		}}}, nil
	case datav1alpha1.PreferAffinityStrategy:
		prefers := strategy.Prefers
		if len(prefers) == 0 {
			prefers = []datav1alpha1.Prefer{{Name: labelHostname, Weight: 100}}
		}
		var terms []corev1.PreferredSchedulingTerm
		for _, p := range prefers {
			if e, ok := recorded[p.Name]; ok {
				terms = append(terms, corev1.PreferredSchedulingTerm{Weight: p.Weight, Preference: corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{*e.DeepCopy()},
				}})
			}
		}
		if len(terms) == 0 {
			return nil, nil
		}
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}, nil
	}
	return nil, nil
}

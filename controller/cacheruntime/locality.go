package cacheruntime

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// topologyKeys are the node labels of the ready workers' nodes that
// status.cacheAffinity reports: the tiers of the default policies'
// preferred localities after the node itself (policies/data.yaml).
var topologyKeys = []string{corev1.LabelTopologyZone, corev1.LabelTopologyRegion}

// cacheAffinity is the runtime's status.cacheAffinity, which the webhook
// reads for tiered locality (every key of its required terms is a locality
// a policy may name). It starts from where the workers may run, as Fluid
// writes it: the worker template's required node affinity (the Dataset's
// spec.nodeAffinity, as the charts render it) with its nodeSelector
// AND-ed into every term (mergeNodeSelector). Then, where the topology of
// the nodes running ready workers (nodes) is known, it says where the
// cache is: each term is narrowed to `key In [values]` for each
// topologyKeys key, the values of the worker nodes that satisfy the term;
// a term that no worker node satisfies is dropped. A key some of those
// nodes lack is left as declared (nothing is known of those nodes'
// zone). Without ready workers, or when none satisfies any term (the
// template just changed), the declared terms stand. Nil when nothing is
// declared or known.
func cacheAffinity(tmpl *corev1.PodSpec, nodes []*corev1.Node) *corev1.NodeAffinity {
	declared := mergeNodeSelector(tmpl.NodeSelector, tmpl.Affinity)
	if len(declared) == 0 {
		// No constraint: every node may hold the cache, and one term
		// without expressions stands for that while it is narrowed.
		declared = []corev1.NodeSelectorTerm{{}}
	}
	var narrowed []corev1.NodeSelectorTerm
	for _, term := range declared {
		if t, ok := narrow(term, nodes); ok {
			narrowed = append(narrowed, t)
		}
	}
	terms := declared
	if len(narrowed) > 0 {
		terms = narrowed
	}
	terms = slices.DeleteFunc(terms, func(t corev1.NodeSelectorTerm) bool {
		return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
	})
	if len(terms) == 0 {
		return nil
	}
	return &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}
}

// mergeNodeSelector is a pod template's required node-affinity terms with
// its nodeSelector AND-ed into each (one term of the selector alone when
// there are none), the semantics of Fluid's
// MergeNodeSelectorAndNodeAffinity. Selector keys are sorted, so that the
// status written does not change with map order.
func mergeNodeSelector(selector map[string]string, aff *corev1.Affinity) []corev1.NodeSelectorTerm {
	var terms []corev1.NodeSelectorTerm
	if aff != nil && aff.NodeAffinity != nil && aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range aff.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			terms = append(terms, *t.DeepCopy())
		}
	}
	if len(selector) == 0 {
		return terms
	}
	var reqs []corev1.NodeSelectorRequirement
	for _, k := range slices.Sorted(maps.Keys(selector)) {
		reqs = append(reqs, corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{selector[k]}})
	}
	if len(terms) == 0 {
		return []corev1.NodeSelectorTerm{{MatchExpressions: reqs}}
	}
	for i := range terms {
		terms[i].MatchExpressions = append(terms[i].MatchExpressions, reqs...)
	}
	return terms
}

// narrow is term restricted to the topology of the nodes that satisfy it,
// and false if none does. An expression-less term (no constraint) is
// satisfied by every node. For each topology key every such node carries,
// the term's own expressions on that key (which those nodes' values
// satisfy, so the new one implies them) give way to one `key In [their
// values]`: a term never holds two requirements on a topology key.
func narrow(term corev1.NodeSelectorTerm, nodes []*corev1.Node) (corev1.NodeSelectorTerm, bool) {
	unconstrained := len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0
	var matched []*corev1.Node
	for _, n := range nodes {
		if unconstrained || satisfies(n, term) {
			matched = append(matched, n)
		}
	}
	if len(matched) == 0 {
		return term, false
	}
	out := *term.DeepCopy()
	for _, key := range topologyKeys {
		values, known := labelValues(matched, key)
		if !known {
			continue
		}
		out.MatchExpressions = slices.DeleteFunc(out.MatchExpressions, func(r corev1.NodeSelectorRequirement) bool { return r.Key == key })
		out.MatchExpressions = append(out.MatchExpressions, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values})
	}
	return out, true
}

// satisfies reports whether node matches term, by the scheduler's own
// rules (component-helpers); a term the API server would not have
// accepted matches nothing.
func satisfies(node *corev1.Node, term corev1.NodeSelectorTerm) bool {
	ok, err := corev1helpers.MatchNodeSelectorTerms(node, &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}})
	return err == nil && ok
}

// labelValues are the sorted distinct values of label key on nodes, and
// whether every node has it.
func labelValues(nodes []*corev1.Node, key string) ([]string, bool) {
	var values []string
	for _, n := range nodes {
		v, ok := n.Labels[key]
		if !ok {
			return nil, false
		}
		if !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	slices.Sort(values)
	return values, true
}

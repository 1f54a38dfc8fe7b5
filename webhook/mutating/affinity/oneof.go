package affinity

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// andOneOf returns a selector equivalent to sel AND (alts[0] OR alts[1] OR
// …), as Fluid combines the terms it injects with the Pod's: each term of
// sel is replaced by its AND with each alternative. A term that already
// has every requirement of some alternative implies the choice and is
// kept as it is, so merging the same alternatives again changes nothing.
// Terms without requirements match no node: alternatives without any are
// ignored, the Pod's own are dropped when it has others, and a selector
// with none of its own (or none at all) becomes the alternatives.
func andOneOf(sel *corev1.NodeSelector, alts []corev1.NodeSelectorTerm) *corev1.NodeSelector {
	var choice []corev1.NodeSelectorTerm
	for i := range alts {
		if !empty(&alts[i]) {
			choice = append(choice, alts[i])
		}
	}
	if len(choice) == 0 {
		return sel
	}
	var own []corev1.NodeSelectorTerm
	if sel != nil {
		for i := range sel.NodeSelectorTerms {
			if !empty(&sel.NodeSelectorTerms[i]) {
				own = append(own, sel.NodeSelectorTerms[i])
			}
		}
	}
	if len(own) == 0 {
		out := &corev1.NodeSelector{NodeSelectorTerms: make([]corev1.NodeSelectorTerm, len(choice))}
		for i := range choice {
			choice[i].DeepCopyInto(&out.NodeSelectorTerms[i])
		}
		return out
	}
	var terms []corev1.NodeSelectorTerm
	for i := range own {
		if impliesOne(&own[i], choice) {
			terms = append(terms, own[i])
			continue
		}
		for j := range choice {
			terms = append(terms, and(&own[i], &choice[j]))
		}
	}
	sel.NodeSelectorTerms = terms
	return sel
}

func empty(t *corev1.NodeSelectorTerm) bool {
	return len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0
}

// impliesOne reports whether t has every requirement of one of alts.
func impliesOne(t *corev1.NodeSelectorTerm, alts []corev1.NodeSelectorTerm) bool {
	for i := range alts {
		if containsAll(t.MatchExpressions, alts[i].MatchExpressions) && containsAll(t.MatchFields, alts[i].MatchFields) {
			return true
		}
	}
	return false
}

func containsAll(have, want []corev1.NodeSelectorRequirement) bool {
	for i := range want {
		found := false
		for j := range have {
			if equality.Semantic.DeepEqual(&have[j], &want[i]) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// and is a new term with the requirements of both t and u, each once.
func and(t, u *corev1.NodeSelectorTerm) corev1.NodeSelectorTerm {
	out := *t.DeepCopy()
	for i := range u.MatchExpressions {
		out.MatchExpressions = appendMissing(out.MatchExpressions, &u.MatchExpressions[i])
	}
	for i := range u.MatchFields {
		out.MatchFields = appendMissing(out.MatchFields, &u.MatchFields[i])
	}
	return out
}

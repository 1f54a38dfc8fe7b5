package affinity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/decision"
)

func req(key, value string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}
}

func term(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: reqs}
}

func podWithRequired(terms ...corev1.NodeSelectorTerm) *corev1.Pod {
	p := &corev1.Pod{}
	if terms != nil {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
	return p
}

func TestMergeRequired(t *testing.T) {
	cache, fuse := req("fluid.io/s-ns-a", "true"), req("gpu", "true")
	tests := []struct {
		name string
		pod  *corev1.Pod                      // the Pod before
		reqs []corev1.NodeSelectorRequirement // required by the decision
		want []corev1.NodeSelectorTerm        // the Pod's required terms after
	}{
		{"no affinity: one term with every requirement (AND, not OR)", podWithRequired(), []corev1.NodeSelectorRequirement{cache, fuse},
			[]corev1.NodeSelectorTerm{term(cache, fuse)}},
		{"each existing term gets every requirement", podWithRequired(term(req("zone", "a")), term(req("zone", "b"))), []corev1.NodeSelectorRequirement{cache},
			[]corev1.NodeSelectorTerm{term(req("zone", "a"), cache), term(req("zone", "b"), cache)}},
		{"a requirement already present is not repeated", podWithRequired(term(cache)), []corev1.NodeSelectorRequirement{cache, fuse},
			[]corev1.NodeSelectorTerm{term(cache, fuse)}},
		{"a matchFields-only term keeps its fields", podWithRequired(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", "n1")}}), []corev1.NodeSelectorRequirement{cache},
			[]corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", "n1")}, MatchExpressions: []corev1.NodeSelectorRequirement{cache}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Merge(tt.pod, decision.Affinity{Required: tt.reqs})
			got := tt.pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("required terms (-want +got):\n%s", diff)
			}
			before := tt.pod.DeepCopy()
			Merge(tt.pod, decision.Affinity{Required: tt.reqs})
			if diff := cmp.Diff(before, tt.pod); diff != "" {
				t.Fatalf("second merge changed the Pod:\n%s", diff)
			}
		})
	}
}

func TestMergePreferredKeepsUserTerms(t *testing.T) {
	user := corev1.PreferredSchedulingTerm{Weight: 5, Preference: term(req("disk", "ssd"))}
	ours := corev1.PreferredSchedulingTerm{Weight: 100, Preference: term(req("fluid.io/s-ns-a", "true"))}
	p := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{
		PodAntiAffinity: &corev1.PodAntiAffinity{},
		NodeAffinity:    &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{user}},
	}}}
	Merge(p, decision.Affinity{Preferred: []corev1.PreferredSchedulingTerm{ours, ours}})
	want := []corev1.PreferredSchedulingTerm{user, ours}
	if diff := cmp.Diff(want, p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); diff != "" {
		t.Fatalf("preferred (-want +got):\n%s", diff)
	}
	if p.Spec.Affinity.PodAntiAffinity == nil {
		t.Fatal("pod anti-affinity was dropped")
	}
}

func TestMergeNothingLeavesPodAlone(t *testing.T) {
	p := &corev1.Pod{}
	Merge(p, decision.Affinity{})
	if p.Spec.Affinity != nil {
		t.Fatal("an empty decision created an affinity")
	}
}

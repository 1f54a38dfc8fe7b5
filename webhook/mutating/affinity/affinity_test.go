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

// TestMergeRequiredTerms: the decision's required terms are alternatives
// (Fluid appends one term per dataset, and Kubernetes ORs terms), AND-ed
// with the Pod's own terms by distribution, and with the required
// requirements in every resulting term.
func TestMergeRequiredTerms(t *testing.T) {
	a, b := req("fluid.io/s-ns-a", "true"), req("fluid.io/s-ns-b", "true")
	gpu, fuse, zone := req("gpu", "a100"), req("fuse", "true"), req("zone", "z1")
	name := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", "n1")}}
	tests := []struct {
		name  string
		pod   *corev1.Pod                      // the Pod before
		terms []corev1.NodeSelectorTerm        // decision: one of these
		reqs  []corev1.NodeSelectorRequirement // decision: all of these
		want  []corev1.NodeSelectorTerm        // the Pod's required terms after
	}{
		{"no affinity: one term per dataset (a OR b)", podWithRequired(), []corev1.NodeSelectorTerm{term(a), term(b)}, nil,
			[]corev1.NodeSelectorTerm{term(a), term(b)}},
		{"requirements go into every term: (a OR b) AND fuse", podWithRequired(), []corev1.NodeSelectorTerm{term(a), term(b)}, []corev1.NodeSelectorRequirement{fuse},
			[]corev1.NodeSelectorTerm{term(a, fuse), term(b, fuse)}},
		{"user terms are distributed: (gpu OR zone) AND (a OR b)", podWithRequired(term(gpu), term(zone)), []corev1.NodeSelectorTerm{term(a), term(b)}, nil,
			[]corev1.NodeSelectorTerm{term(gpu, a), term(gpu, b), term(zone, a), term(zone, b)}},
		{"a user term that already requires one dataset is kept", podWithRequired(term(gpu, b), term(zone)), []corev1.NodeSelectorTerm{term(a), term(b)}, nil,
			[]corev1.NodeSelectorTerm{term(gpu, b), term(zone, a), term(zone, b)}},
		{"a dataset term of several requirements is one alternative", podWithRequired(term(gpu)), []corev1.NodeSelectorTerm{term(a, zone)}, nil,
			[]corev1.NodeSelectorTerm{term(gpu, a, zone)}},
		{"a matchFields term keeps its fields in each product", podWithRequired(name), []corev1.NodeSelectorTerm{term(a), term(b)}, nil,
			[]corev1.NodeSelectorTerm{{MatchFields: name.MatchFields, MatchExpressions: []corev1.NodeSelectorRequirement{a}},
				{MatchFields: name.MatchFields, MatchExpressions: []corev1.NodeSelectorRequirement{b}}}},
		{"empty user terms match nothing and are dropped", podWithRequired(term(), term(gpu)), []corev1.NodeSelectorTerm{term(a)}, nil,
			[]corev1.NodeSelectorTerm{term(gpu, a)}},
		{"only empty user terms: the alternatives replace them, as in Fluid", podWithRequired(term()), []corev1.NodeSelectorTerm{term(a), term(b)}, nil,
			[]corev1.NodeSelectorTerm{term(a), term(b)}},
		{"an empty alternative is ignored", podWithRequired(term(gpu)), []corev1.NodeSelectorTerm{term(), term(a)}, nil,
			[]corev1.NodeSelectorTerm{term(gpu, a)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decision.Affinity{RequiredTerms: tt.terms, Required: tt.reqs}
			Merge(tt.pod, d)
			got := tt.pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("required terms (-want +got):\n%s", diff)
			}
			before := tt.pod.DeepCopy()
			Merge(tt.pod, d)
			if diff := cmp.Diff(before, tt.pod); diff != "" {
				t.Fatalf("second merge changed the Pod:\n%s", diff)
			}
		})
	}
}

func TestMergeOnlyEmptyAlternativesLeavesPodAlone(t *testing.T) {
	p := podWithRequired(term(req("gpu", "a100")))
	before := p.DeepCopy()
	Merge(p, decision.Affinity{RequiredTerms: []corev1.NodeSelectorTerm{term()}})
	if diff := cmp.Diff(before, p); diff != "" {
		t.Fatalf("an empty alternative changed the Pod:\n%s", diff)
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

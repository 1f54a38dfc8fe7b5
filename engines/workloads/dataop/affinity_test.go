package dataop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

func expr(key string, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

func term(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: reqs}
}

func required(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
}

func preferred(weight int32, t corev1.NodeSelectorTerm) corev1.PreferredSchedulingTerm {
	return corev1.PreferredSchedulingTerm{Weight: weight, Preference: t}
}

func podTerm(app string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}
}

func TestMergeAffinity(t *testing.T) {
	zoneA, zoneB := expr("zone", "a"), expr("zone", "b")
	gpu, host := expr("gpu", "true"), expr("kubernetes.io/hostname", "n1")
	withField := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n2"}}}}
	for _, tc := range []struct {
		name string
		a, b *corev1.Affinity // the operation's, the runAfter one
		want *corev1.Affinity
	}{
		{"neither", nil, nil, nil},
		{"spec only", required(term(zoneA)), nil, required(term(zoneA))},
		{"runAfter only", nil, required(term(host)), required(term(host))},
		// (zone=a) and (host=n1): one term with both.
		{"one term each", required(term(zoneA)), required(term(host)), required(term(zoneA, host))},
		// (zone=a or zone=b) and (host=n1): host=n1 joins every term.
		{"runAfter ANDed into every term", required(term(zoneA), term(zoneB, gpu)), required(term(host)),
			required(term(zoneA, host), term(zoneB, gpu, host))},
		// (zone=a or zone=b) and (host=n1 or metadata.name=n2): four terms.
		{"two terms each", required(term(zoneA), term(zoneB)), required(term(host), withField),
			required(term(zoneA, host), corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{zoneA}, MatchFields: withField.MatchFields},
				term(zoneB, host), corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{zoneB}, MatchFields: withField.MatchFields})},
		{"no required terms constrain nothing", required(), required(term(host)), required(term(host))},
		{"preferred appended",
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{preferred(10, term(zoneA))}}},
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term(gpu)}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{preferred(50, term(host))}}},
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term(gpu)}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{preferred(10, term(zoneA)), preferred(50, term(host))}}}},
		{"pod affinity terms appended",
			&corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm("master")}},
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm("noisy")}}},
			&corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm("load")}}},
			&corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm("master"), podTerm("load")}},
				PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{podTerm("noisy")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.a.DeepCopy(), tc.b.DeepCopy()
			got := dataop.MergeAffinity(tc.a, tc.b)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("merged (-want +got):\n%s", diff)
			}
			if !cmp.Equal(a, tc.a) || !cmp.Equal(b, tc.b) {
				t.Error("MergeAffinity modified its arguments")
			}
		})
	}
}

package operation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func in(key, value string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}
}

func required(exprs ...corev1.NodeSelectorRequirement) *corev1.NodeAffinity {
	return &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}},
	}}
}

// TestNodeAffinityOf records the node by name, its region and zone, and
// the node's value of the label keys the pod's affinity named.
func TestNodeAffinityOf(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{
		labelZone: "zone-a", labelRegion: "region-1", "rack": "r7", "unrelated": "x", labelHostname: "host-label",
	}}}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "rack", Operator: corev1.NodeSelectorOpExists}, {Key: "missing", Operator: corev1.NodeSelectorOpExists}},
		}}},
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{in(labelZone, "zone-a")},
		}}},
	}}}}
	want := required(in(labelHostname, "node-1"), in(labelRegion, "region-1"), in(labelZone, "zone-a"), in("rack", "r7"))
	if diff := cmp.Diff(want, nodeAffinityOf(pod, node, nil)); diff != "" {
		t.Fatalf("nodeAffinity (-want +got):\n%s", diff)
	}
	// The operation's affinity.dataflow.fluid.io/labels name more keys;
	// those the node lacks are not recorded.
	exposed := dataflowLabels(map[string]string{datav1alpha1.AnnotationDataflowAffinityLabels: " unrelated,,gpu, "})
	if diff := cmp.Diff([]string{"unrelated", "gpu"}, exposed); diff != "" {
		t.Fatalf("dataflow labels (-want +got):\n%s", diff)
	}
	want = required(in(labelHostname, "node-1"), in(labelRegion, "region-1"), in(labelZone, "zone-a"), in("unrelated", "x"))
	if diff := cmp.Diff(want, nodeAffinityOf(&corev1.Pod{}, node, exposed)); diff != "" {
		t.Fatalf("nodeAffinity with dataflow labels (-want +got):\n%s", diff)
	}
	bare := nodeAffinityOf(&corev1.Pod{}, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-2"}}, nil)
	if diff := cmp.Diff(required(in(labelHostname, "node-2")), bare); diff != "" {
		t.Fatalf("a node without topology labels (-want +got):\n%s", diff)
	}
}

// TestAffinityFor derives the next operation's affinity from where the
// earlier one ran, by affinityStrategy.
func TestAffinityFor(t *testing.T) {
	ran := required(in(labelHostname, "node-1"), in(labelZone, "zone-a"), in("rack", "r7"))
	for _, tc := range []struct {
		name     string
		strategy datav1alpha1.AffinityStrategy
		ran      *corev1.NodeAffinity
		want     *corev1.Affinity
		missing  []string
	}{
		{"no policy", datav1alpha1.AffinityStrategy{}, ran, nil, nil},
		{"Require defaults to the node", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy}, ran,
			&corev1.Affinity{NodeAffinity: required(in(labelHostname, "node-1"))}, nil},
		{"Require the zone and a custom label", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy,
			Requires: []datav1alpha1.Require{{Name: labelZone}, {Name: "rack"}}}, ran,
			&corev1.Affinity{NodeAffinity: required(in(labelZone, "zone-a"), in("rack", "r7"))}, nil},
		{"Require a key never recorded", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy,
			Requires: []datav1alpha1.Require{{Name: labelZone}, {Name: "not-recorded"}, {Name: "gpu"}}}, ran, nil, []string{"not-recorded", "gpu"}},
		{"Prefer a key never recorded", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.PreferAffinityStrategy,
			Prefers: []datav1alpha1.Prefer{{Name: "not-recorded", Weight: 5}}}, ran, nil, nil},
		{"Prefer defaults to the node at 100", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.PreferAffinityStrategy}, ran,
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 100, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in(labelHostname, "node-1")}}},
			}}}, nil},
		{"Prefer weighted zone", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.PreferAffinityStrategy, Prefers: []datav1alpha1.Prefer{{Name: labelZone, Weight: 30}}}, ran,
			&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 30, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in(labelZone, "zone-a")}}},
			}}}, nil},
		{"the earlier operation recorded nothing", datav1alpha1.AffinityStrategy{Policy: datav1alpha1.RequireAffinityStrategy}, nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, missing := affinityFor(tc.strategy, tc.ran)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("affinity (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.missing, missing); diff != "" {
				t.Fatalf("missing required keys (-want +got):\n%s", diff)
			}
		})
	}
}

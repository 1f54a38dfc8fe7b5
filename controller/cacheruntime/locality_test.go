package cacheruntime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	zone   = corev1.LabelTopologyZone
	region = corev1.LabelTopologyRegion
)

func in(key string, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
}

func term(reqs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: reqs}
}

func node(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// at is a node in a zone and region.
func at(name, z, r string) *corev1.Node {
	return node(name, map[string]string{zone: z, region: r})
}

// template is a worker pod spec with required node-affinity terms and a
// nodeSelector.
func template(selector map[string]string, terms ...corev1.NodeSelectorTerm) *corev1.PodSpec {
	spec := &corev1.PodSpec{NodeSelector: selector}
	if terms != nil {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
	return spec
}

// TestCacheAffinity: the worker template's node affinity and nodeSelector
// merged as Fluid merges them, narrowed to the zones and regions of the
// nodes running ready workers.
func TestCacheAffinity(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tmpl  *corev1.PodSpec
		nodes []*corev1.Node // the ready workers' nodes
		want  []corev1.NodeSelectorTerm
	}{
		{name: "nothing declared, no ready worker", tmpl: template(nil)},
		{name: "nothing declared, worker nodes without topology labels", tmpl: template(nil), nodes: []*corev1.Node{node("n1", nil)}},
		{name: "nothing declared, one worker: its zone and region (the policy fixtures' shape)", tmpl: template(nil),
			nodes: []*corev1.Node{at("n1", "zone-a", "region-1")},
			want:  []corev1.NodeSelectorTerm{term(in(zone, "zone-a"), in(region, "region-1"))}},
		{name: "workers in two zones of a region", tmpl: template(nil),
			nodes: []*corev1.Node{at("n2", "zone-b", "region-1"), at("n1", "zone-a", "region-1")},
			want:  []corev1.NodeSelectorTerm{term(in(zone, "zone-a", "zone-b"), in(region, "region-1"))}},
		{name: "a worker node without a region: the zone alone", tmpl: template(nil),
			nodes: []*corev1.Node{at("n1", "zone-a", "region-1"), node("n2", map[string]string{zone: "zone-b"})},
			want:  []corev1.NodeSelectorTerm{term(in(zone, "zone-a", "zone-b"))}},
		{name: "nodeSelector alone, no ready worker: one term, keys sorted (Fluid's merge)",
			tmpl: template(map[string]string{"ssd": "true", "gpu": "a100"}),
			want: []corev1.NodeSelectorTerm{term(in("gpu", "a100"), in("ssd", "true"))}},
		{name: "nodeSelector AND-ed into every declared term",
			tmpl: template(map[string]string{"ssd": "true"}, term(in("rack", "r1")), term(in("rack", "r2"))),
			want: []corev1.NodeSelectorTerm{term(in("rack", "r1"), in("ssd", "true")), term(in("rack", "r2"), in("ssd", "true"))}},
		{name: "declared zones, workers in one of them: that zone",
			tmpl:  template(nil, term(in(zone, "zone-a", "zone-b"))),
			nodes: []*corev1.Node{at("n1", "zone-b", "region-1")},
			want:  []corev1.NodeSelectorTerm{term(in(zone, "zone-b"), in(region, "region-1"))}},
		{name: "a term no worker satisfies is dropped",
			tmpl:  template(nil, term(in(zone, "zone-a")), term(in(zone, "zone-c"))),
			nodes: []*corev1.Node{at("n1", "zone-a", "region-1")},
			want:  []corev1.NodeSelectorTerm{term(in(zone, "zone-a"), in(region, "region-1"))}},
		{name: "each term gets the topology of the workers satisfying it",
			tmpl: template(nil, term(in("rack", "r1")), term(in("rack", "r2"))),
			nodes: []*corev1.Node{
				node("n1", map[string]string{"rack": "r1", zone: "zone-a", region: "region-1"}),
				node("n2", map[string]string{"rack": "r2", zone: "zone-c", region: "region-2"}),
			},
			want: []corev1.NodeSelectorTerm{
				term(in("rack", "r1"), in(zone, "zone-a"), in(region, "region-1")),
				term(in("rack", "r2"), in(zone, "zone-c"), in(region, "region-2")),
			}},
		{name: "no worker satisfies any term (the template just changed): the terms as declared",
			tmpl:  template(nil, term(in(zone, "zone-c"))),
			nodes: []*corev1.Node{at("n1", "zone-a", "region-1")},
			want:  []corev1.NodeSelectorTerm{term(in(zone, "zone-c"))}},
		{name: "declared requirements on a topology key give way to the workers' values",
			tmpl: template(nil, term(corev1.NodeSelectorRequirement{Key: zone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"zone-c"}},
				corev1.NodeSelectorRequirement{Key: zone, Operator: corev1.NodeSelectorOpExists}, in("ssd", "true"))),
			nodes: []*corev1.Node{node("n1", map[string]string{"ssd": "true", zone: "zone-a"})},
			want:  []corev1.NodeSelectorTerm{term(in("ssd", "true"), in(zone, "zone-a"))}},
		{name: "a term by node name (matchFields)",
			tmpl:  template(nil, corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{in("metadata.name", "n1")}}),
			nodes: []*corev1.Node{at("n1", "zone-a", "region-1")},
			want: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{in("metadata.name", "n1")},
				MatchExpressions: []corev1.NodeSelectorRequirement{in(zone, "zone-a"), in(region, "region-1")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cacheAffinity(tc.tmpl, tc.nodes)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("cacheAffinity = %+v, want none", got)
				}
				return
			}
			want := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: tc.want}}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("cacheAffinity (-want +got):\n%s", d)
			}
		})
	}
}

// TestCacheAffinityLeavesTheTemplateAlone: the template's terms are
// copied, not narrowed in place (it is the cache's StatefulSet).
func TestCacheAffinityLeavesTheTemplateAlone(t *testing.T) {
	tmpl := template(map[string]string{"ssd": "true"}, term(in(zone, "zone-a", "zone-b")))
	before := tmpl.DeepCopy()
	cacheAffinity(tmpl, []*corev1.Node{at("n1", "zone-a", "region-1")})
	if d := cmp.Diff(before, tmpl); d != "" {
		t.Fatalf("the template changed (-before +after):\n%s", d)
	}
}

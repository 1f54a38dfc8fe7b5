package snapshot

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestDatasetOfClaim(t *testing.T) {
	tests := []struct {
		name   string
		ns     string
		claim  string
		labels map[string]string
		want   types.NamespacedName
		ok     bool
	}{
		// name, PVC namespace, PVC name, PVC labels, dataset, is a dataset PVC
		{"sluice labels name the dataset", "team-b", "shared", map[string]string{"dataset.sluice.io/namespace": "team-a", "dataset.sluice.io/name": "imagenet"}, types.NamespacedName{Namespace: "team-a", Name: "imagenet"}, true},
		{"fluid dataset-id of the PVC itself", "team-a", "imagenet", map[string]string{"fluid.io/dataset-id": "team-a-imagenet"}, types.NamespacedName{Namespace: "team-a", Name: "imagenet"}, true},
		{"fluid dataset-id naming another dataset is not trusted", "team-a", "imagenet", map[string]string{"fluid.io/dataset-id": "team-b-other"}, types.NamespacedName{}, false},
		{"half of the sluice labels", "team-a", "imagenet", map[string]string{"dataset.sluice.io/name": "imagenet"}, types.NamespacedName{}, false},
		{"plain PVC", "team-a", "data", nil, types.NamespacedName{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: tt.ns, Name: tt.claim, Labels: tt.labels}}
			got, ok := DatasetOfClaim(pvc)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("got %v %v, want %v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestLocalities(t *testing.T) {
	in := func(k string, v ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: v}
	}
	ca := &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
		{MatchExpressions: []corev1.NodeSelectorRequirement{in("zone", "a"), in("region", "r1")}},
		{MatchExpressions: []corev1.NodeSelectorRequirement{in("zone", "b", "a"), in("fluid.io/node", "x")}},
	}}}
	got := localities(DatasetLabels{Cache: "fluid.io/s-ns-d", Fuse: "fluid.io/f-ns-d"}, ca)
	want := map[string][]corev1.NodeSelectorRequirement{
		"fluid.io/node": {in("fluid.io/s-ns-d", "true")},
		"fluid.io/fuse": {in("fluid.io/f-ns-d", "true")},
		"zone":          {in("zone", "a", "b")}, // OR-ed terms: values merged, never narrowed
		"region":        {in("region", "r1")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("localities (-want +got):\n%s", diff)
	}
	if ca.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values[0] != "a" ||
		len(ca.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values) != 1 {
		t.Fatal("the runtime's cacheAffinity was modified")
	}
}

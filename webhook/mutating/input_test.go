package mutating_test

import (
	"encoding/json"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/mutating"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// TestInputValueMatchesJSON checks the direct conversion of the policy input
// against the JSON round trip it replaces, on an input with every kind of field.
func TestInputValueMatchesJSON(t *testing.T) {
	size := resource.MustParse("1Gi")
	seconds := int64(30)
	bidi := corev1.MountPropagationBidirectional
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"a": "b"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u"}}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"zone": "a"},
			Tolerations:  []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, TolerationSeconds: &seconds}},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 3, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "x", Operator: corev1.NodeSelectorOpExists}}}},
			}}},
			Volumes: []corev1.Volume{
				{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}},
			},
			Containers: []corev1.Container{{Name: "c", Image: "i", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/d", MountPropagation: &bidi}}}},
		},
	}
	vols := []snapshot.DatasetVolume{{Volume: "data", Claim: "c", Dataset: snapshot.DatasetFacts{Namespace: "ns", Name: "d", Phase: "Bound",
		Runtime:    snapshot.RuntimeFacts{Type: "juicefs", FuseNodeSelector: map[string]string{}, CacheAffinity: &corev1.NodeAffinity{}},
		Localities: map[string][]corev1.NodeSelectorRequirement{"fluid.io/node": {{Key: "k", Operator: "In", Values: []string{"true"}}}}}}}
	in := mutating.NewInput(mutating.Request{Pod: pod, Operation: "CREATE", Namespace: "ns"}, vols, snapshot.Namespace{Name: "ns"}, true)

	got, err := regovalue.ToValue(&in)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := util.UnmarshalJSON(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want, err := ast.InterfaceToValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compare(want) != 0 {
		t.Fatalf("direct conversion differs from JSON:\n got %v\nwant %v", got, want)
	}
}

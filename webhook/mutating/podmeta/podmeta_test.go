package podmeta

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/webhook/decision"
)

func TestMutateSetsLabelsAndAnnotationsWithoutSharingMaps(t *testing.T) {
	d := &decision.Mutating{Labels: map[string]string{"done": "true"}, Annotations: map[string]string{"fluid.io/datasets-in-use": "a,b"}}
	bare := &corev1.Pod{}
	if err := (Mutator{}).Mutate(bare, d, nil); err != nil {
		t.Fatal(err)
	}
	if bare.Labels["done"] != "true" || bare.Annotations["fluid.io/datasets-in-use"] != "a,b" {
		t.Fatalf("metadata = %v %v", bare.Labels, bare.Annotations)
	}
	bare.Labels["other"] = "x"
	if _, leaked := d.Labels["other"]; leaked {
		t.Fatal("the Pod shares its label map with the decision, which is shared between requests")
	}
	existing := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"fluid.io/datasets-in-use": "stale"}}}
	if err := (Mutator{}).Mutate(existing, d, nil); err != nil {
		t.Fatal(err)
	}
	if existing.Labels["app"] != "web" || existing.Annotations["fluid.io/datasets-in-use"] != "a,b" {
		t.Fatalf("metadata = %v %v", existing.Labels, existing.Annotations)
	}
	empty := &corev1.Pod{}
	if err := (Mutator{}).Mutate(empty, &decision.Mutating{}, nil); err != nil || empty.Labels != nil || empty.Annotations != nil {
		t.Fatalf("an empty decision changed the Pod: %v %v %v", err, empty.Labels, empty.Annotations)
	}
}

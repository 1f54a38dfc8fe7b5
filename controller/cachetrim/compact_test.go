package cachetrim

import (
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// TestCompactKeepsWhatPodKept: the protobuf round trip changes nothing
// the trim kept (every field filled), and shares no string with the
// decoded Pod, whose memory it exists to free.
func TestCompactKeepsWhatPodKept(t *testing.T) {
	in := &corev1.Pod{}
	fill(reflect.ValueOf(in).Elem())
	in.Kind, in.APIVersion = "Pod", "v1"
	in.Labels[managedBy] = "sluice"    // the whole of what Pod keeps
	in.Spec.Affinity.PodAffinity = nil // Pod keeps the node affinity only
	in.Spec.Affinity.PodAntiAffinity = nil
	in.Name, in.Spec.Containers[0].Image = "a-pod", "registry.example.com/app:1" // one-byte strings are Go's static ones
	kept := Pod(in.DeepCopy())
	got := compact(kept)
	if !equality.Semantic.DeepEqual(got, kept) {
		t.Fatalf("the round trip changed the trimmed Pod:\n got %+v\nwant %+v", got, kept)
	}
	if unsafe.StringData(got.Name) == unsafe.StringData(kept.Name) || unsafe.StringData(got.Spec.Containers[0].Image) == unsafe.StringData(kept.Spec.Containers[0].Image) {
		t.Fatal("the compacted Pod shares its strings with the one it was made from")
	}
}

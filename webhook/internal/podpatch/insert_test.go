package podpatch

import (
	"encoding/json"
	"testing"

	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// apply applies ops, in order, to doc (Apply).
func apply(t *testing.T, name string, doc []byte, ops []jsonpatch.JsonPatchOperation) []byte {
	t.Helper()
	out, err := Apply(doc, ops)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// checkApplies checks that ops turn from into a Pod semantically equal to to.
func checkApplies(t *testing.T, name string, from, to *corev1.Pod, ops []jsonpatch.JsonPatchOperation) {
	t.Helper()
	got, err := ApplyToPod(from, ops)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !equality.Semantic.DeepEqual(got, to) {
		t.Fatalf("%s: the patch turns the Pod into\n%+v\nwant\n%+v", name, got.Spec, to.Spec)
	}
}

// TestInsertedSidecarLeavesUnknownFieldsOnTheirContainer (reliability audit
// L3): the API server applies the webhook's patch to the Pod as it
// received it, with fields a newer Kubernetes has and this build does not.
// A sidecar prepended to containers and initContainers is an insertion, so
// such a field stays on its own container; diffed index by index, it
// stayed at index 0, on the sidecar.
func TestInsertedSidecarLeavesUnknownFieldsOnTheirContainer(t *testing.T) {
	from := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app"}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "setup", Image: "setup"}},
		Containers:     []corev1.Container{{Name: "app", Image: "app"}, {Name: "log", Image: "log"}},
	}}
	to := from.DeepCopy()
	sidecar := corev1.Container{Name: "fluid-fuse-0", Image: "fuse", Command: []string{"mount"}}
	to.Spec.InitContainers = append([]corev1.Container{sidecar}, to.Spec.InitContainers...)
	to.Spec.Containers = append([]corev1.Container{sidecar}, to.Spec.Containers...)
	to.Spec.Containers[1].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	ops, err := Diff(from, to)
	if err != nil {
		t.Fatal(err)
	}
	received := []byte(`{"metadata":{"name":"app"},"spec":{
		"initContainers":[{"name":"setup","image":"setup","futureField":"setup's"}],
		"containers":[{"name":"app","image":"app","futureField":"app's"},{"name":"log","image":"log","futureField":"log's"}]}}`)
	var stored struct {
		Spec struct {
			InitContainers []map[string]any `json:"initContainers"`
			Containers     []map[string]any `json:"containers"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(apply(t, "sidecar", received, ops), &stored); err != nil {
		t.Fatal(err)
	}
	for _, list := range [][]map[string]any{stored.Spec.InitContainers, stored.Spec.Containers} {
		for _, c := range list {
			want := any(nil)
			if c["name"] != sidecar.Name {
				want = c["name"].(string) + "'s"
			}
			if c["futureField"] != want {
				t.Errorf("container %v has futureField %v, want %v", c["name"], c["futureField"], want)
			}
		}
	}
	if n := len(stored.Spec.Containers); n != 3 || stored.Spec.Containers[1]["volumeMounts"] == nil {
		t.Errorf("containers after the patch: %v", stored.Spec.Containers)
	}
}

package gc

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestRecordOwner: a PodTemplate is a FUSE record the controller wrote
// only with the record's labels, name and runtime annotation.
func TestRecordOwner(t *testing.T) {
	rt := &datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "logs", UID: "9d2f"}}
	record := datav1alpha1.FuseRecord("sluice-system", rt, corev1.PodTemplateSpec{})
	meta := func(change func(*metav1.ObjectMeta)) *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{ObjectMeta: *record.ObjectMeta.DeepCopy()}
		change(&m.ObjectMeta)
		return m
	}
	uid, ns, name, ok := recordOwner(meta(func(*metav1.ObjectMeta) {}))
	if !ok || uid != rt.UID || ns != "team-a" || name != "logs" {
		t.Fatalf("recordOwner = %q %q %q %v, want the runtime's", uid, ns, name, ok)
	}
	for what, change := range map[string]func(*metav1.ObjectMeta){
		"without the record label":  func(m *metav1.ObjectMeta) { delete(m.Labels, datav1alpha1.LabelFuseRecord) },
		"managed by someone else":   func(m *metav1.ObjectMeta) { m.Labels["app.kubernetes.io/managed-by"] = "Helm" },
		"of another name":           func(m *metav1.ObjectMeta) { m.Name = "fusion-9d2f" },
		"without the runtime":       func(m *metav1.ObjectMeta) { delete(m.Annotations, datav1alpha1.AnnotationFuseRecordRuntime) },
		"naming no runtime":         func(m *metav1.ObjectMeta) { m.Annotations[datav1alpha1.AnnotationFuseRecordRuntime] = "logs" },
		"with an empty runtime UID": func(m *metav1.ObjectMeta) { m.Name = "fuse-" },
	} {
		if _, _, _, ok := recordOwner(meta(change)); ok {
			t.Errorf("a PodTemplate %s is taken for a FUSE record", what)
		}
	}
}

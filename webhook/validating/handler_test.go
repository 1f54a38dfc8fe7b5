package validating

import (
	"context"
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

func TestOnlyFinalizersChanged(t *testing.T) {
	old := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", ResourceVersion: "1"},
		Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: "ftp://h/p"}}}}
	for _, c := range []struct {
		name   string
		change func(*datav1alpha1.Dataset)
		want   bool // the update skips the policies
	}{
		{"finalizer added", func(d *datav1alpha1.Dataset) {
			d.Finalizers, d.ResourceVersion = []string{"data.sluice.io/dataset"}, "2"
		}, true},
		{"finalizer and managedFields", func(d *datav1alpha1.Dataset) {
			d.Finalizers, d.ManagedFields = []string{"x"}, []metav1.ManagedFieldsEntry{{Manager: "sluice"}}
		}, true},
		{"nothing changed", func(*datav1alpha1.Dataset) {}, false},
		{"finalizer and mounts", func(d *datav1alpha1.Dataset) {
			d.Finalizers, d.Spec.Mounts = []string{"x"}, []datav1alpha1.Mount{{MountPoint: "s3://b"}}
		}, false},
		{"finalizer and a label", func(d *datav1alpha1.Dataset) { d.Finalizers, d.Labels = []string{"x"}, map[string]string{"a": "b"} }, false},
		{"mounts only", func(d *datav1alpha1.Dataset) { d.Spec.Mounts = nil }, false},
	} {
		cur := old.DeepCopy()
		c.change(cur)
		if got := onlyFinalizersChanged(old, cur); got != c.want {
			t.Errorf("%s: onlyFinalizersChanged = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFinalizerUpdatesAreAdmitted: the controller's finalizer writes are
// admitted without a policy evaluation (the handler has no pipeline here:
// reaching it would fail the request).
func TestFinalizerUpdatesAreAdmitted(t *testing.T) {
	old := &datav1alpha1.Dataset{TypeMeta: metav1.TypeMeta{APIVersion: datav1alpha1.GroupVersion.String(), Kind: "Dataset"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", Finalizers: []string{"data.sluice.io/dataset"}}}
	cur := old.DeepCopy()
	cur.Finalizers = nil
	raw := func(d *datav1alpha1.Dataset) runtime.RawExtension {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	h := &Handler{Scheme: sluicescheme.New()}
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Kind:      metav1.GroupVersionKind{Group: datav1alpha1.GroupName, Version: "v1alpha1", Kind: "Dataset"},
		Operation: admissionv1.Update, Namespace: "n", Name: "d", Object: raw(cur), OldObject: raw(old),
	}})
	if !resp.Allowed {
		t.Fatalf("removing the finalizer was refused: %+v", resp.Result)
	}
}

// TestMetadataOfADeletedObjectIsAdmitted: the force-delete annotation on a
// Dataset being deleted is admitted without policies (the handler has no
// pipeline: evaluating would panic); a spec change of it, or the annotation
// on a Dataset not being deleted, is judged.
func TestMetadataOfADeletedObjectIsAdmitted(t *testing.T) {
	now := metav1.Now()
	old := &datav1alpha1.Dataset{TypeMeta: metav1.TypeMeta{APIVersion: datav1alpha1.GroupVersion.String(), Kind: "Dataset"},
		ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n", Finalizers: []string{"data.sluice.io/dataset"}, DeletionTimestamp: &now}}
	cur := old.DeepCopy()
	cur.Annotations = map[string]string{datav1alpha1.AnnotationForceDelete: "true"}
	if !deletingMetadataOnly(old, cur) {
		t.Fatal("the annotation on a Dataset being deleted is judged")
	}
	h := &Handler{Scheme: sluicescheme.New()}
	b, _ := json.Marshal(cur)
	a, _ := json.Marshal(old)
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Kind:      metav1.GroupVersionKind{Group: datav1alpha1.GroupName, Version: "v1alpha1", Kind: "Dataset"},
		Operation: admissionv1.Update, Namespace: "n", Name: "d", Object: runtime.RawExtension{Raw: b}, OldObject: runtime.RawExtension{Raw: a},
	}})
	if !resp.Allowed {
		t.Fatalf("the force-delete annotation was refused: %+v", resp.Result)
	}
	spec := cur.DeepCopy()
	spec.Spec.Mounts = []datav1alpha1.Mount{{MountPoint: "s3://other"}}
	if deletingMetadataOnly(old, spec) {
		t.Fatal("a spec change of a Dataset being deleted is not judged")
	}
	alive, annotated := old.DeepCopy(), cur.DeepCopy()
	alive.DeletionTimestamp, annotated.DeletionTimestamp = nil, nil
	if deletingMetadataOnly(alive, annotated) {
		t.Fatal("an annotation on a Dataset not being deleted is not judged")
	}
}

// TestStatusWritesAreNotJudged (reliability audit L2): an UPDATE of a
// subresource other than scale (the controller's status writes, should a
// configuration send them) is admitted without evaluating the rules as if
// it were a spec change. The handler here has no pipeline, so evaluating
// would panic.
func TestStatusWritesAreNotJudged(t *testing.T) {
	b, err := json.Marshal(&datav1alpha1.JuiceFSRuntime{TypeMeta: metav1.TypeMeta{APIVersion: datav1alpha1.GroupVersion.String(), Kind: "JuiceFSRuntime"},
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{Scheme: sluicescheme.New()}
	resp := h.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Kind:     metav1.GroupVersionKind{Group: datav1alpha1.GroupName, Version: "v1alpha1", Kind: "JuiceFSRuntime"},
		Resource: metav1.GroupVersionResource{Group: datav1alpha1.GroupName, Version: "v1alpha1", Resource: "juicefsruntimes"}, SubResource: "status",
		Operation: admissionv1.Update, Namespace: "n", Name: "r", Object: runtime.RawExtension{Raw: b}, OldObject: runtime.RawExtension{Raw: b},
	}})
	if !resp.Allowed || resp.Result == nil || resp.Result.Message != "the status subresource is not validated" {
		t.Fatalf("a status write: allowed %v, %+v", resp.Allowed, resp.Result)
	}
}

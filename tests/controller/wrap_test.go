package controller_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestThinDatasetWrapsItsPVC (issue 32, point 6): a ThinRuntime Dataset
// whose one mount is pvc://nas-data marks that PVC with its name
// (dataset.sluice.io/wrapped-by) once bound, leaving the PVC's other
// labels alone, and the mark goes when the Dataset is deleted (with its
// runtime), while the PVC stays.
func TestThinDatasetWrapsItsPVC(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	nas := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nas-data", Labels: map[string]string{"app": "train"}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Ti")}}}}
	if err := env.Client.Create(ctx, nas); err != nil {
		t.Fatal(err)
	}
	profile := &datav1alpha1.ThinRuntimeProfile{ObjectMeta: metav1.ObjectMeta{Name: "nas-" + ns}, Spec: datav1alpha1.ThinRuntimeProfileSpec{
		FileSystemType: "nfs",
		Fuse: datav1alpha1.ThinFuseSpec{VersionSpec: datav1alpha1.VersionSpec{Image: "registry.example.com/nfs-fuse", ImageTag: "v1"},
			Command: []string{"/usr/local/bin/mount-nfs"}},
	}}
	if err := env.Client.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, profile) })
	ds := testobj.Dataset("nas", ns, testobj.WithMounts("pvc://nas-data"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.ThinRuntime{ObjectMeta: metav1.ObjectMeta{Name: "nas", Namespace: ns}, Spec: datav1alpha1.ThinRuntimeSpec{ProfileName: profile.Name}}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the Dataset is Bound and PVC nas-data marked as wrapped by it", func() bool {
		return env.Client.Get(ctx, key("nas"), ds) == nil && ds.Status.Phase == datav1alpha1.BoundDatasetPhase &&
			env.Client.Get(ctx, key("nas-data"), nas) == nil && nas.Labels[datav1alpha1.LabelWrappedByDataset] == "nas"
	})
	if nas.Labels["app"] != "train" {
		t.Errorf("PVC nas-data's labels %v, want its own label kept", nas.Labels)
	}

	if err := env.Client.Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the Dataset is gone and the mark with it", func() bool {
		return env.Client.Get(ctx, key("nas"), &datav1alpha1.Dataset{}) != nil &&
			env.Client.Get(ctx, key("nas-data"), nas) == nil && nas.Labels[datav1alpha1.LabelWrappedByDataset] == ""
	})
	if nas.Labels["app"] != "train" || !nas.DeletionTimestamp.IsZero() {
		t.Errorf("PVC nas-data after the Dataset's deletion: labels %v, deletion %v; want it kept as it was", nas.Labels, nas.DeletionTimestamp)
	}
}

package webhook_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestReadOnlyDatasetSidecarMountsThroughTheAPIServer: the sidecar
// rewrite of a dataset whose PV admits only ReadOnlyMany (Fluid's default
// access mode, which the CSI plugin mounts read-only) stores the app's
// mount read-only, though the Pod's claim is writable; a dataset whose PV
// admits ReadWriteMany stays writable.
func TestReadOnlyDatasetSidecarMountsThroughTheAPIServer(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	seedDataset(t, ns, "scratch", datav1alpha1.BoundDatasetPhase)
	pv := &corev1.PersistentVolume{}
	if err := env.Client.Get(ctxT(t), client.ObjectKey{Name: ns + "-scratch"}, pv); err != nil {
		t.Fatal(err)
	}
	pv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	if err := env.Client.Update(ctxT(t), pv); err != nil {
		t.Fatal(err)
	}
	waitForCache()
	for dataset, readOnly := range map[string]bool{"models": true, "scratch": false} {
		pod := datasetPod(dataset+"-reader", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, dataset)
		pod.Namespace = ns
		if err := env.Client.Create(ctxT(t), pod); err != nil {
			t.Fatalf("%s: %v", dataset, err)
		}
		got := &corev1.Pod{}
		if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
			t.Fatal(err)
		}
		if v := got.Spec.Volumes[0]; v.HostPath == nil {
			t.Fatalf("%s: the volume was not rewritten: %+v", dataset, v)
		}
		if m := got.Spec.Containers[0].VolumeMounts[0]; m.ReadOnly != readOnly {
			t.Errorf("%s: the app's mount is readOnly=%v, want %v", dataset, m.ReadOnly, readOnly)
		}
	}
}

package snapshot

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestAWrappedPVCIsTheDatasets: a Pod mounting the PVC a ThinRuntime
// Dataset wraps gets that Dataset's facts (its own PV's FUSE path), with
// the Pod's claim and Wrapped set. A mark the Dataset does not bear out
// (it mounts another PVC, a sub-path, or is not served by a ThinRuntime;
// it does not exist) gives nothing, and neither does an unmarked PVC.
func TestAWrappedPVCIsTheDatasets(t *testing.T) {
	ctx := context.Background()
	dataset := func(name, mount, runtimeType string) *datav1alpha1.Dataset {
		return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name},
			Spec: datav1alpha1.DatasetSpec{Mounts: []datav1alpha1.Mount{{MountPoint: mount}}},
			Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase,
				Runtimes: []datav1alpha1.Runtime{{Name: name, Namespace: "team-a", Type: runtimeType}}}}
	}
	own := func(ds string) client.Object {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: ds,
			Labels: map[string]string{datav1alpha1.LabelDatasetNamespace: "team-a", datav1alpha1.LabelDatasetName: ds, datav1alpha1.LabelDatasetID: "team-a-" + ds}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "team-a-" + ds}}
	}
	pv := func(ds string) client.Object {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "team-a-" + ds,
			Labels: map[string]string{datav1alpha1.LabelDatasetNamespace: "team-a", datav1alpha1.LabelDatasetName: ds}},
			Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: datav1alpha1.CSIDriverName, VolumeHandle: "team-a-" + ds, VolumeAttributes: map[string]string{datav1alpha1.VolumeAttrFluidPath: "/runtime-mnt/thin/team-a/" + ds}}}}}
	}
	marked := func(name, ds string) *corev1.PersistentVolumeClaim {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}}
		if ds != "" {
			pvc.Labels = map[string]string{datav1alpha1.LabelWrappedByDataset: ds}
		}
		return pvc
	}
	objects := []client.Object{
		dataset("nas", "pvc://nas-data", "thin"), own("nas"), pv("nas"),
		dataset("other", "pvc://other-data", "thin"), own("other"), pv("other"),
		dataset("sub", "pvc://sub-data/train", "thin"), own("sub"), pv("sub"),
		dataset("cached", "pvc://cached-data", "alluxio"), own("cached"), pv("cached"),
	}
	// The webhook's main cache holds the datasets' own PVCs; the wrapped
	// ones are in a cache of their own.
	main := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objects...).Build()
	wrapped := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		marked("nas-data", "nas"),
		marked("forged", "other"),       // Dataset other mounts other-data
		marked("sub-data", "sub"),       // Dataset sub mounts a sub-path of it
		marked("cached-data", "cached"), // Dataset cached is an Alluxio one's
		marked("ghost-data", "ghost"),   // no such Dataset
		marked("plain", ""),             // no mark
	).Build()
	g := &Gatherer{Reader: main, Wrapped: wrapped}
	pod := func(claim string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a"},
			Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}}}
	}
	vols, err := g.DatasetVolumes(ctx, "team-a", pod("nas-data"))
	if err != nil || len(vols) != 1 {
		t.Fatalf("the wrapped PVC: %+v, %v; want one dataset volume", vols, err)
	}
	if v := vols[0]; v.Claim != "nas-data" || !v.Wrapped || v.Dataset.Name != "nas" || v.Dataset.Namespace != "team-a" ||
		v.Dataset.Volume.FluidPath != "/runtime-mnt/thin/team-a/nas" || v.Dataset.Runtime.Type != "thin" {
		t.Errorf("the wrapped PVC: %+v; want Dataset team-a/nas's facts, claim nas-data, wrapped", v)
	}
	if vols, err := g.DatasetVolumes(ctx, "team-a", pod("nas")); err != nil || len(vols) != 1 || vols[0].Wrapped || vols[0].Claim != "nas" {
		t.Errorf("the Dataset's own PVC: %+v, %v; want it, not wrapped", vols, err)
	}
	for _, claim := range []string{"forged", "sub-data", "cached-data", "ghost-data", "plain", "missing"} {
		if vols, err := g.DatasetVolumes(ctx, "team-a", pod(claim)); err != nil || len(vols) != 0 {
			t.Errorf("PVC %s: %+v, %v; want no dataset volume", claim, vols, err)
		}
	}
}

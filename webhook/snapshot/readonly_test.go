package snapshot

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestReadOnlyManyVolumeFacts: a dataset volume is read-only when its PV
// admits ReadOnlyMany only (the kubelet then asks the CSI plugin for a
// MULTI_NODE_READER_ONLY volume), not when it admits a writer mode too.
func TestReadOnlyManyVolumeFacts(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mine"},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase}}
	for _, tc := range []struct {
		modes []corev1.PersistentVolumeAccessMode
		want  bool
	}{
		{[]corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany}, true},
		{[]corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}, false},
		{[]corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany}, false},
		{nil, false},
	} {
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "team-a-mine", Labels: map[string]string{datav1alpha1.LabelDatasetID: "team-a-mine"}},
			Spec: corev1.PersistentVolumeSpec{AccessModes: tc.modes, PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "fuse.csi.fluid.io", VolumeHandle: "team-a-mine", VolumeAttributes: map[string]string{datav1alpha1.VolumeAttrFluidPath: "/runtime-mnt/mine"}}}}}
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mine",
			Labels: map[string]string{datav1alpha1.LabelDatasetNamespace: "team-a", datav1alpha1.LabelDatasetName: "mine"}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: pv.Name}}
		g := &Gatherer{Reader: fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ds, pv, pvc).Build()}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a"}, Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data",
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "mine"}}}}}}
		vols, err := g.DatasetVolumes(ctx, "team-a", pod)
		if err != nil || len(vols) != 1 {
			t.Fatalf("%v: %+v %v", tc.modes, vols, err)
		}
		if got := vols[0].Dataset.Volume.ReadOnly; got != tc.want {
			t.Errorf("PV access modes %v: readOnly %v, want %v", tc.modes, got, tc.want)
		}
	}
}

package snapshot

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestAForgedVolumeNameLendsNoFusePath (reliability audit M3): a PVC whose
// labels name the author's own dataset but whose volumeName names another
// dataset's PV gets no facts from that PV (whose FUSE path the sidecar
// rewrite would mount): the volume is refused, naming both. The PVC of the
// dataset's own PV is read as before.
func TestAForgedVolumeNameLendsNoFusePath(t *testing.T) {
	ctx := context.Background()
	mine := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mine"},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase}}
	pv := func(id string) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: id, Labels: map[string]string{datav1alpha1.LabelDatasetID: id}},
			Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "fuse.csi.fluid.io", VolumeHandle: id, VolumeAttributes: map[string]string{datav1alpha1.VolumeAttrFluidPath: "/runtime-mnt/" + id}}}}}
	}
	claim := func(name, volume string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name,
			Labels: map[string]string{datav1alpha1.LabelDatasetNamespace: "team-a", datav1alpha1.LabelDatasetName: "mine"}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume}}
	}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(mine, pv("team-a-mine"), pv("team-b-secret"),
		claim("honest", "team-a-mine"), claim("forged", "team-b-secret")).Build()
	g := &Gatherer{Reader: c}
	pod := func(claim string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a", Labels: map[string]string{"serverless.fluid.io/inject": "true"}},
			Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}}}
	}
	vols, err := g.DatasetVolumes(ctx, "team-a", pod("honest"))
	if err != nil || len(vols) != 1 || vols[0].Dataset.Volume.FluidPath != "/runtime-mnt/team-a-mine" {
		t.Fatalf("the dataset's own PVC: %+v, %v", vols, err)
	}
	if vols, err := g.DatasetVolumes(ctx, "team-a", pod("forged")); err == nil || !strings.Contains(err.Error(), "team-b-secret is not that dataset's") {
		t.Fatalf("a PVC naming another dataset's PV: %+v, %v; want refused", vols, err)
	}
}

// TestTheAmbiguousDatasetIDLendsNoFusePath: Dataset c of namespace a-b and
// Dataset b-c of namespace a share fluid.io/dataset-id a-b-c. A PVC of
// namespace a, labelled for its own Dataset b-c, naming the PV of a-b's c
// is refused: the PV's dataset.sluice.io labels name a-b/c. (It was
// admitted while the check compared dataset-ids.)
func TestTheAmbiguousDatasetIDLendsNoFusePath(t *testing.T) {
	ctx := context.Background()
	mine := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b-c"},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase}}
	theirs := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "a-b.c", Labels: map[string]string{
		datav1alpha1.LabelDatasetID: "a-b-c", datav1alpha1.LabelDatasetNamespace: "a-b", datav1alpha1.LabelDatasetName: "c"}},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
			Driver: "fuse.csi.fluid.io", VolumeHandle: "a-b.c", VolumeAttributes: map[string]string{datav1alpha1.VolumeAttrFluidPath: "/runtime-mnt/a-b/c"}}}}}
	forged := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b-c",
		Labels: map[string]string{datav1alpha1.LabelDatasetID: "a-b-c", datav1alpha1.LabelDatasetNamespace: "a", datav1alpha1.LabelDatasetName: "b-c"}},
		Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "a-b.c"}}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(mine, theirs, forged).Build()
	g := &Gatherer{Reader: c}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "a", Labels: map[string]string{"serverless.fluid.io/inject": "true"}},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "b-c"}}}}}}
	if vols, err := g.DatasetVolumes(ctx, "a", pod); err == nil || !strings.Contains(err.Error(), `a-b.c is not that dataset's (it is labelled for dataset.sluice.io/namespace="a-b"`) {
		t.Fatalf("a PVC naming the PV of the other dataset of its dataset-id: %+v, %v; want refused", vols, err)
	}
}

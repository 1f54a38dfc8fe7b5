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

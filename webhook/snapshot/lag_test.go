package snapshot

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
)

// TestCacheLagNeverAdmitsALabelledPodUnmutated (reliability audit M11): a
// Pod that asked for injection, whose dataset PVC the API server holds but
// the webhook's cache does not show yet, is refused (to be retried) rather
// than treated as mounting no dataset; a Pod that did not ask, or a PVC
// that is no dataset's, is not held back.
func TestCacheLagNeverAdmitsALabelledPodUnmutated(t *testing.T) {
	ctx := context.Background()
	datasetPVC := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "imagenet",
		Labels: map[string]string{"fluid.io/dataset-id": "team-a-imagenet"}}}
	plainPVC := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "scratch"}}
	cache := fakeclient.NewClientBuilder().WithScheme(scheme.New()).Build() // shows neither yet
	live := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(datasetPVC, plainPVC).Build()
	g := &Gatherer{Reader: cache, Live: live}
	pod := func(claim string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a", Labels: labels},
			Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}}}
	}
	asked := map[string]string{"serverless.fluid.io/inject": "true"}

	if _, err := g.DatasetVolumes(ctx, "team-a", pod("imagenet", asked)); err == nil || !strings.Contains(err.Error(), "does not see it yet") {
		t.Errorf("a labelled Pod whose dataset PVC the cache lags behind: %v, want refused", err)
	}
	for name, p := range map[string]*corev1.Pod{
		"an unlabelled Pod (fail-open path)":        pod("imagenet", nil),
		"a labelled Pod with a PVC of no dataset":   pod("scratch", asked),
		"a labelled Pod with a PVC that is nowhere": pod("gone", asked),
	} {
		if vols, err := g.DatasetVolumes(ctx, "team-a", p); err != nil || len(vols) != 0 {
			t.Errorf("%s: %d dataset volumes, %v; want none and no error", name, len(vols), err)
		}
	}
}

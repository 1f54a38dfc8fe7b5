package webhook_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestFilePrefetcherAnnotationsAreWarned (gap P17): a Pod annotated for
// Fluid's FilePrefetcher, through the real API server, is admitted (and
// still mutated as usual) with a warning naming the annotations and saying
// they are not supported; one without them gets no such warning.
func TestFilePrefetcherAnnotationsAreWarned(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "models", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	c, warned := warnedClient(t)

	plain := datasetPod("plain", serverful, "models")
	plain.Namespace = ns
	if err := c.Create(ctxT(t), plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(warned.String(), "file-prefetcher") {
		t.Fatalf("a Pod without prefetcher annotations was warned: %s", warned)
	}

	pod := datasetPod("prefetch", serverful, "models")
	pod.Namespace = ns
	pod.Annotations = map[string]string{
		datav1alpha1.AnnotationFilePrefetcherPrefix + "inject":    "true",
		datav1alpha1.AnnotationFilePrefetcherPrefix + "file-list": "pvc://models/*.bin",
	}
	if err := c.Create(ctxT(t), pod); err != nil {
		t.Fatalf("a Pod with prefetcher annotations: %v", err)
	}
	want := "file-prefetcher.fluid.io/file-list, file-prefetcher.fluid.io/inject: not supported: Sluice has no file prefetcher"
	if !strings.Contains(warned.String(), want) {
		t.Fatalf("warnings %q do not say %q", warned, want)
	}
	got := &corev1.Pod{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got); err != nil {
		t.Fatal(err)
	}
	if got.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "models" {
		t.Fatalf("the warned Pod was not mutated as usual: %v", got.Annotations)
	}
}

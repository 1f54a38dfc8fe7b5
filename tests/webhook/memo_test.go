package webhook_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// The replicas of a Deployment reach the webhook with equal inputs (their
// names are generated after admission), and all but the first are decided
// from the decision memo, which recognises them by their Go input. Pods of
// five kinds, a first of each created alone (and checked to be mutated as
// its kind must be: a FUSE sidecar or not, preferred data affinity or not)
// and then eight more of each created concurrently (the memo compares
// remembered inputs while other requests build theirs; the package runs
// under the race detector), are each mutated as the first of their kind.
func TestRepeatedPodsAreMutatedAsTheFirst(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	serverless := datav1alpha1.LabelServerlessInject
	kinds := []struct {
		labels             map[string]string
		sidecar, preferred bool
	}{
		{serverful, false, true},
		{map[string]string{serverless: "true"}, true, false},
		// sched=required: required affinity to the cache, none preferred.
		{map[string]string{datav1alpha1.LabelServerfulInject: "true", "fluid.io/dataset.imagenet.sched": "required"}, false, false},
		{map[string]string{serverless: "true", "app": "other"}, true, false},
		{map[string]string{datav1alpha1.LabelServerfulInject: "true", "app": "other"}, false, true},
	}
	first := make([]any, len(kinds))
	for i, k := range kinds {
		p := createReplica(t, ns, k.labels)
		aff := p.Spec.Affinity
		preferred := aff != nil && aff.NodeAffinity != nil && len(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
		if sidecar := len(p.Spec.InitContainers) > 0; sidecar != k.sidecar || preferred != k.preferred {
			t.Fatalf("the first Pod labelled %v: FUSE sidecar %v, preferred affinity %v; want %v, %v", k.labels, sidecar, preferred, k.sidecar, k.preferred)
		}
		first[i] = mutation(p)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*10)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 10 {
				i := (g + n) % len(kinds)
				got := mutation(createReplica(t, ns, kinds[i].labels))
				if d := cmp.Diff(first[i], got); d != "" {
					errs <- fmt.Errorf("a Pod of kind %d is mutated unlike the first of its kind (-first +this one):\n%s", i, d)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// createReplica creates a Pod of the dataset imagenet with labels, named
// by the API server as a Deployment's replicas are, and returns it as
// stored.
func createReplica(t *testing.T, ns string, labels map[string]string) *corev1.Pod {
	t.Helper()
	pod := datasetPod("", labels, "imagenet")
	pod.Namespace, pod.GenerateName = ns, "replica-"
	got, err := stored(t, pod)
	if err != nil { // Errorf, not Fatalf: replicas are created from goroutines
		t.Errorf("create: %v", err)
		return pod
	}
	return got
}

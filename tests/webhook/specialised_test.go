package webhook_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/metrics"
)

// The first Pod of an input class is admitted with the general query and
// starts the build of the class's specialised query; once that is built,
// the next Pod of the class, admitted with it, gets the same mutation.
func TestAPIServerStoresPodMutatedWithSpecialisedQuery(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	// A class no other test sends: serverful and unprivileged.
	labels := map[string]string{datav1alpha1.LabelServerfulInject: "true", "unprivileged.sidecar.fluid.io/inject": "true"}
	built := metrics.SpecialisedQueries.WithLabelValues(policies.MutatingQuery, "ok")
	before := counterValue(t, built)

	first := create(t, ns, "first", labels)
	deadline := time.Now().Add(30 * time.Second)
	for counterValue(t, built) <= before {
		if time.Now().After(deadline) {
			t.Fatal("the class's specialised query was not built")
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := create(t, ns, "second", labels)

	if second.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "imagenet" || second.Spec.Affinity == nil ||
		len(second.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 2 {
		t.Fatalf("the second Pod was not mutated as an affinity Pod: %v %+v", second.Annotations, second.Spec.Affinity)
	}
	if d := cmp.Diff(mutation(first), mutation(second)); d != "" {
		t.Errorf("the specialised query mutated the Pod differently (-general +specialised):\n%s", d)
	}
}

func create(t *testing.T, ns, name string, labels map[string]string) *corev1.Pod {
	t.Helper()
	pod := datasetPod(name, labels, "imagenet")
	pod.Namespace = ns
	got, err := stored(t, pod)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return got
}

// stored creates pod and returns it as the API server stored it.
func stored(t *testing.T, pod *corev1.Pod) (*corev1.Pod, error) {
	if err := env.Client.Create(ctxT(t), pod); err != nil {
		return nil, err
	}
	got := &corev1.Pod{}
	return got, env.Client.Get(ctxT(t), client.ObjectKeyFromObject(pod), got)
}

// mutation is what the webhook changes in a Pod.
func mutation(p *corev1.Pod) any {
	return []any{p.Labels, p.Annotations, p.Spec.Affinity, p.Spec.Volumes, p.Spec.InitContainers, p.Spec.Containers}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

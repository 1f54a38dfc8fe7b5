package webhooktoken_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook/metrics"
)

// Three replicas of a data-affinity Pod, each given a token volume of its
// own name by the API server, are mutated alike, and only the first is
// evaluated: the others are decided from the decision memo.
func TestReplicasWithTokenVolumesAreDecidedOnce(t *testing.T) {
	ctx := testenv.Context(t)
	ns := env.Namespace(t)
	if err := env.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
	if err := testobj.SeedDataset(ctx, env.Client, ns, "imagenet", datav1alpha1.BoundDatasetPhase); err != nil {
		t.Fatal(err)
	}
	time.Sleep(testenv.Stretch(500 * time.Millisecond)) // the webhook's cache
	var pods []*corev1.Pod
	var evaluated []uint64
	for range 3 {
		before := evaluations(t)
		pods = append(pods, createReplica(t, ns))
		evaluated = append(evaluated, evaluations(t)-before)
	}
	tokens := map[string]bool{}
	for _, p := range pods {
		for _, v := range p.Spec.Volumes {
			if strings.HasPrefix(v.Name, "kube-api-access-") {
				tokens[v.Name] = true
			}
		}
	}
	if len(tokens) != len(pods) {
		t.Fatalf("token volumes %v: want one of its own per Pod (is the ServiceAccount plugin on?)", tokens)
	}
	if pods[0].Spec.Affinity == nil || pods[0].Annotations[datav1alpha1.AnnotationDatasetsInUse] != "imagenet" {
		t.Fatalf("the first replica was not mutated: %v %+v", pods[0].Annotations, pods[0].Spec.Affinity)
	}
	for i, p := range pods[1:] {
		if d := cmp.Diff(mutation(pods[0]), mutation(p)); d != "" {
			t.Errorf("replica %d is mutated unlike the first (-first +this one):\n%s", i+2, d)
		}
	}
	if evaluated[0] != 1 || evaluated[1] != 0 || evaluated[2] != 0 {
		t.Errorf("policy evaluations per replica %v, want [1 0 0]: the replicas were not decided from the memo", evaluated)
	}
}

func createReplica(t *testing.T, ns string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "replica-", Namespace: ns, Labels: map[string]string{datav1alpha1.LabelServerfulInject: "true"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:    []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "imagenet"}}}},
		},
	}
	if err := env.Client.Create(testenv.Context(t), pod); err != nil {
		t.Fatal(err)
	}
	got := &corev1.Pod{}
	if err := env.Client.Get(testenv.Context(t), client.ObjectKeyFromObject(pod), got); err != nil {
		t.Fatal(err)
	}
	return got
}

// mutation is what the webhook decides for a Pod: its labels, annotations
// and affinity (its volumes differ by the token volume's name).
func mutation(p *corev1.Pod) any {
	return []any{p.Labels, p.Annotations, p.Spec.Affinity}
}

// evaluations is how many times the webhook has evaluated its mutating
// policy.
func evaluations(t *testing.T) uint64 {
	t.Helper()
	var m dto.Metric
	if err := metrics.PolicyEvalDuration.WithLabelValues(policies.MutatingQuery).(interface{ Write(*dto.Metric) error }).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

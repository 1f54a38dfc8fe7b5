package faults_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// probeLabels are the injection labels probe Pods take turns with: the
// serverful one (data-affinity scheduling) and the serverless one (a FUSE
// sidecar); both are on the mutating webhook's Fail path.
var probeLabels = []string{datav1alpha1.LabelServerfulInject, datav1alpha1.LabelServerlessInject}

// admissions creates Pods labelled for injection that mount a Dataset's
// PVC, while the webhook's own requests fail, and records what the API
// server did with each: refused (the webhook denied it or could not be
// reached, which the Pod's creator retries) or stored, in which case the
// stored Pod must be mutated. A stored labelled Pod without the mutation
// is the one outcome the webhook must never allow.
type admissions struct {
	ns string

	mu        sync.Mutex
	n         int
	admitted  map[string]int // label -> Pods stored mutated
	refused   map[string]int // first words of the refusal -> count
	unmutated []string
}

func newAdmissions(ns string) *admissions {
	return &admissions{ns: ns, admitted: map[string]int{}, refused: map[string]int{}}
}

// try creates one labelled Pod mounting dataset's PVC and checks what was
// stored; it then deletes the Pod (no kubelet runs here, so an unscheduled
// Pod goes at once), which keeps the in-use guard of later deletions clear.
func (a *admissions) try(ctx context.Context, dataset string) {
	a.mu.Lock()
	label := probeLabels[a.n%len(probeLabels)]
	a.n++
	a.mu.Unlock()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-" + dataset + "-", Namespace: a.ns, Labels: map[string]string{label: "true"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: dataset}}}},
		},
	}
	err := env.Client.Create(ctx, pod)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		a.refused[reason(err)]++
		return
	}
	if why := unmutated(pod, dataset, label); why != "" {
		a.unmutated = append(a.unmutated, fmt.Sprintf("%s (%s): %s", pod.Name, label, why))
	} else {
		a.admitted[label]++
	}
	_ = env.Client.Delete(ctx, pod, client.GracePeriodSeconds(0))
}

// unmutated says what a stored Pod labelled label lacks of the webhook's
// mutation for dataset, "" when nothing.
func unmutated(pod *corev1.Pod, dataset, label string) string {
	if !slices.Contains(strings.Split(pod.Annotations[datav1alpha1.AnnotationDatasetsInUse], ","), dataset) {
		return fmt.Sprintf("annotation %s=%q", datav1alpha1.AnnotationDatasetsInUse, pod.Annotations[datav1alpha1.AnnotationDatasetsInUse])
	}
	if label != datav1alpha1.LabelServerlessInject {
		if a := pod.Spec.Affinity; a == nil || a.NodeAffinity == nil {
			return "no node affinity"
		}
		return ""
	}
	if pod.Labels[datav1alpha1.LabelInjectionDone] != "true" {
		return "no injection marker"
	}
	if len(pod.Spec.InitContainers) == 0 || pod.Spec.Volumes[0].HostPath == nil {
		return fmt.Sprintf("no FUSE sidecar or rewritten volume: %d init containers, volume %+v", len(pod.Spec.InitContainers), pod.Spec.Volumes[0].VolumeSource)
	}
	return ""
}

// reason is the first words of a refusal after the webhook's name, which
// groups refusals of one cause.
func reason(err error) string {
	s := err.Error()
	if i := strings.Index(s, "denied the request: "); i >= 0 {
		s = s[i+len("denied the request: "):]
	}
	if len(s) > 90 {
		s = s[:90]
	}
	return s
}

// probe creates labelled Pods for each Dataset of names whose PVC the API
// server holds, one every 100 ms in turn, until stop is closed.
func (a *admissions) probe(ctx context.Context, names []string, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
		n := names[i%len(names)]
		pvc := &corev1.PersistentVolumeClaim{}
		if env.Client.Get(ctx, types.NamespacedName{Namespace: a.ns, Name: n}, pvc) == nil && pvc.DeletionTimestamp.IsZero() {
			a.try(ctx, n)
		}
	}
}

// check fails t if a labelled Pod was stored unmutated, or if no Pod of a
// label was stored at all (the test would then prove nothing).
func (a *admissions) check(t *testing.T) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	t.Logf("probe Pods: %d created; stored mutated %v; refused %v", a.n, a.admitted, a.refused)
	if len(a.unmutated) > 0 {
		t.Errorf("%d labelled Pods stored without the webhook's mutation:\n  %s", len(a.unmutated), strings.Join(a.unmutated, "\n  "))
	}
	for _, l := range probeLabels {
		if a.admitted[l] == 0 {
			t.Errorf("no Pod labelled %s was stored: the webhook's mutation was never exercised (refusals %v)", l, a.refused)
		}
	}
}

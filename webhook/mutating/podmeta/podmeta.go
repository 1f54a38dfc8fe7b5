package podmeta

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Mutator applies decision.Labels and decision.Annotations.
type Mutator struct{}

// Name implements mutating.Mutator.
func (Mutator) Name() string { return "podmeta" }

// Mutate implements mutating.Mutator.
func (Mutator) Mutate(pod *corev1.Pod, d *decision.Mutating, _ []snapshot.DatasetVolume) error {
	pod.Labels = set(pod.Labels, d.Labels)
	pod.Annotations = set(pod.Annotations, d.Annotations)
	return nil
}

func set(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]string, len(src))
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

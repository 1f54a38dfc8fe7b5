package demo

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// createAdmitted creates the Pod once the webhook's caches have seen the
// Dataset: until then the webhook admits a Pod unchanged, so the demo
// dry-runs it first (for up to 15 s) until the webhook's annotation
// appears. pod is updated to what was stored.
func (s *story) createAdmitted(ctx context.Context, pod *corev1.Pod) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		probe := pod.DeepCopy()
		if err := s.Client.Create(ctx, probe, client.DryRunAll); err != nil {
			return fmt.Errorf("creating Pod %s: %w", pod.Name, err)
		}
		if probe.Annotations[datav1alpha1.AnnotationDatasetsInUse] != "" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the webhook did not mutate Pod %s within 15 s", pod.Name)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := s.Client.Create(ctx, pod); err != nil {
		return fmt.Errorf("creating Pod %s: %w", pod.Name, err)
	}
	return nil
}

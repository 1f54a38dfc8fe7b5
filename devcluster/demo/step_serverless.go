package demo

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// serverless creates the sample Pod "server", labelled for serverless
// injection: the webhook adds the FUSE sidecar and rewrites the Dataset's
// PVC to the FUSE mount's hostPath.
func (s *story) serverless(ctx context.Context) error {
	pod, err := samplePod("server")
	if err != nil {
		return err
	}
	if err := s.createAdmitted(ctx, pod); err != nil {
		return err
	}
	s.say("Pod %s/%s admitted with:\n%s", ns, pod.Name, describe(pod))
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == dataset {
			return fmt.Errorf("the webhook did not rewrite PVC %[2]s of Pod %[1]s", pod.Name, dataset)
		}
	}
	if !hasFuseSidecar(pod) {
		return fmt.Errorf("the webhook added no FUSE sidecar to Pod %s", pod.Name)
	}
	node, err := s.scheduled(ctx, pod.Name)
	if err != nil {
		return err
	}
	s.say("kube-scheduler placed Pod %s on %s", pod.Name, node)
	return nil
}

// hasFuseSidecar reports whether the webhook added a FUSE container (a
// native sidecar, or a plain container where native sidecars are off).
func hasFuseSidecar(pod *corev1.Pod) bool {
	for _, c := range append(pod.Spec.InitContainers, pod.Spec.Containers...) {
		if strings.HasPrefix(c.Name, "fluid-fuse") {
			return true
		}
	}
	return false
}

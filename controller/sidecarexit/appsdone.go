package sidecarexit

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Watched reports whether pod is one whose sidecars this package may have
// to end: the webhook injected it, it ends (restartPolicy Never or
// OnFailure), it has a FUSE sidecar among its regular containers, and it
// is not annotated yet.
func Watched(pod *corev1.Pod) bool {
	if pod.Labels[datav1alpha1.LabelInjectionDone] != "true" || pod.Annotations[datav1alpha1.AnnotationAppsDone] == "true" {
		return false
	}
	if p := pod.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
		return false
	}
	for _, c := range pod.Spec.Containers {
		if isSidecar(c.Name) {
			return true
		}
	}
	return false
}

// AppsDone reports whether a watched Pod's app containers (its regular
// containers other than the FUSE sidecars) have all ended for good: each is
// terminated, and will not be restarted (with restartPolicy OnFailure, it
// exited 0). A Pod that is being deleted or has ended already needs no
// annotation.
func AppsDone(pod *corev1.Pod) bool {
	if !Watched(pod) || pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	status := map[string]*corev1.ContainerState{}
	for i := range pod.Status.ContainerStatuses {
		s := &pod.Status.ContainerStatuses[i]
		status[s.Name] = &s.State
	}
	apps := 0
	for _, c := range pod.Spec.Containers {
		if isSidecar(c.Name) {
			continue
		}
		apps++
		st := status[c.Name]
		if st == nil || st.Terminated == nil {
			return false
		}
		if pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && st.Terminated.ExitCode != 0 {
			return false
		}
	}
	return apps > 0
}

func isSidecar(name string) bool {
	return strings.HasPrefix(name, datav1alpha1.FuseSidecarContainerPrefix)
}

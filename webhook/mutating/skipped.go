package mutating

import (
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Skipped says whether the handler leaves a Pod alone whatever the
// policies say, and why: the Pod opted out (fluid.io/enable-injection
// "false"), or was mutated already (done.sidecar.fluid.io/inject "true",
// which makes reinvocation a no-op). `sluice policy eval` asks it too.
func Skipped(pod *corev1.Pod) (reason string, skip bool) {
	switch {
	case pod.Labels[datav1alpha1.LabelEnableInjection] == "false":
		return "injection disabled by " + datav1alpha1.LabelEnableInjection + "=false", true
	case pod.Labels[datav1alpha1.LabelInjectionDone] == "true":
		return "already injected", true
	}
	return "", false
}

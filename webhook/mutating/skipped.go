package mutating

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Skipped says whether the handler leaves a Pod unmutated whatever the
// policies decide, and why: the Pod opted out (fluid.io/enable-injection
// "false"), or was mutated already (done.sidecar.fluid.io/inject "true"
// with an injected FUSE container in it, which makes reinvocation a
// no-op; the label alone is a Pod author's claim and is not believed).
// The policies' deny rules still apply to a skipped Pod (Request.CheckOnly):
// a Pod's own labels opt it out of mutation, never out of a platform's
// deny rules. `sluice policy eval` asks it too.
func Skipped(pod *corev1.Pod) (reason string, skip bool) {
	switch {
	case pod.Labels[datav1alpha1.LabelEnableInjection] == "false":
		return "injection disabled by " + datav1alpha1.LabelEnableInjection + "=false", true
	case pod.Labels[datav1alpha1.LabelInjectionDone] == "true" && hasInjectedContainer(pod):
		return "already injected", true
	}
	return "", false
}

// hasInjectedContainer says whether pod has a container (an init
// container, for a native sidecar) named as the injected FUSE containers
// are.
func hasInjectedContainer(pod *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if strings.HasPrefix(c.Name, datav1alpha1.FuseSidecarContainerPrefix) {
				return true
			}
		}
	}
	return false
}

// FailsClosed says whether a Pod the webhook could not handle is refused
// rather than admitted unmutated: it asked for injection
// (datav1alpha1.AskedForInjection) and did not opt out of it.
func FailsClosed(pod *corev1.Pod) bool {
	return datav1alpha1.AskedForInjection(pod.Labels) && pod.Labels[datav1alpha1.LabelEnableInjection] != "false"
}

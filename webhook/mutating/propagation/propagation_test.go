package propagation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSetOnlyUnsetMountsOfTheVolume(t *testing.T) {
	bidi := corev1.MountPropagationBidirectional
	p := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", VolumeMounts: []corev1.VolumeMount{{Name: "data"}}}},
		Containers: []corev1.Container{{Name: "app", VolumeMounts: []corev1.VolumeMount{
			{Name: "data", MountPath: "/a"},
			{Name: "data", MountPath: "/b", MountPropagation: &bidi},
			{Name: "other", MountPath: "/c"},
		}}},
	}}
	Set(p, "data", corev1.MountPropagationHostToContainer)
	check := func(m corev1.VolumeMount, want *corev1.MountPropagationMode) {
		t.Helper()
		switch {
		case want == nil && m.MountPropagation != nil:
			t.Errorf("%s %s: propagation %v, want none", m.Name, m.MountPath, *m.MountPropagation)
		case want != nil && (m.MountPropagation == nil || *m.MountPropagation != *want):
			t.Errorf("%s %s: propagation %v, want %v", m.Name, m.MountPath, m.MountPropagation, *want)
		}
	}
	h2c := corev1.MountPropagationHostToContainer
	check(p.Spec.InitContainers[0].VolumeMounts[0], &h2c)
	check(p.Spec.Containers[0].VolumeMounts[0], &h2c)
	check(p.Spec.Containers[0].VolumeMounts[1], &bidi)
	check(p.Spec.Containers[0].VolumeMounts[2], nil)
}

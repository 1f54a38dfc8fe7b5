package propagation

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// Mutator applies decision.MountPropagation.
type Mutator struct{}

// Name implements mutating.Mutator.
func (Mutator) Name() string { return "propagation" }

// Mutate implements mutating.Mutator.
func (Mutator) Mutate(pod *corev1.Pod, d *decision.Mutating, _ []snapshot.DatasetVolume) error {
	for _, mp := range d.MountPropagation {
		Set(pod, mp.Volume, mp.Mode)
	}
	return nil
}

// Set gives every init and app container mount of volume the mode, unless
// the mount already has a propagation mode.
func Set(pod *corev1.Pod, volume string, mode corev1.MountPropagationMode) {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			for j := range cs[i].VolumeMounts {
				m := &cs[i].VolumeMounts[j]
				if m.Name == volume && m.MountPropagation == nil {
					m.MountPropagation = &mode
				}
			}
		}
	}
}

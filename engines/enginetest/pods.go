package enginetest

import corev1 "k8s.io/api/core/v1"

// Volume is the pod's volume of the name, or nil.
func Volume(spec corev1.PodSpec, name string) *corev1.Volume {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

// MountAt is the container's volume mount at dir, or nil.
func MountAt(c corev1.Container, dir string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath == dir {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

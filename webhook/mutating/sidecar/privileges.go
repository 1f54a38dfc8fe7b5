package sidecar

import (
	corev1 "k8s.io/api/core/v1"
)

// fuseDevice is the host device a privileged FUSE container mounts.
const fuseDevice = "/dev/fuse"

// dropPrivileges makes c run unprivileged: privileged is false, SYS_ADMIN is
// dropped, and the /dev/fuse host device is not mounted (the cluster is
// expected to provide FUSE through a device plugin). Bidirectional mounts,
// which need privileges, become HostToContainer.
func dropPrivileges(pod *corev1.Pod, c *corev1.Container) {
	if c.SecurityContext == nil {
		c.SecurityContext = &corev1.SecurityContext{}
	}
	sc := c.SecurityContext
	f := false
	sc.Privileged = &f
	sc.AllowPrivilegeEscalation = &f
	if sc.Capabilities == nil {
		sc.Capabilities = &corev1.Capabilities{}
	}
	sc.Capabilities.Add = without(sc.Capabilities.Add, "SYS_ADMIN")
	if !contains(sc.Capabilities.Drop, "SYS_ADMIN") {
		sc.Capabilities.Drop = append(sc.Capabilities.Drop, "SYS_ADMIN")
	}
	devVolumes := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil && v.HostPath.Path == fuseDevice {
			devVolumes[v.Name] = true
		}
	}
	mounts := c.VolumeMounts[:0]
	for _, m := range c.VolumeMounts {
		if devVolumes[m.Name] {
			continue
		}
		if m.MountPropagation != nil && *m.MountPropagation == corev1.MountPropagationBidirectional {
			mode := corev1.MountPropagationHostToContainer
			m.MountPropagation = &mode
		}
		mounts = append(mounts, m)
	}
	c.VolumeMounts = mounts
	pruneUnusedVolumes(pod, devVolumes)
}

// pruneUnusedVolumes removes the named volumes that no container mounts.
func pruneUnusedVolumes(pod *corev1.Pod, names map[string]bool) {
	if len(names) == 0 {
		return
	}
	used := map[string]bool{}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, m := range c.VolumeMounts {
				used[m.Name] = true
			}
		}
	}
	vols := pod.Spec.Volumes[:0]
	for _, v := range pod.Spec.Volumes {
		if names[v.Name] && !used[v.Name] {
			continue
		}
		vols = append(vols, v)
	}
	pod.Spec.Volumes = vols
}

func without(caps []corev1.Capability, c corev1.Capability) []corev1.Capability {
	out := caps[:0]
	for _, x := range caps {
		if x != c {
			out = append(out, x)
		}
	}
	return out
}

func contains(caps []corev1.Capability, c corev1.Capability) bool {
	for _, x := range caps {
		if x == c {
			return true
		}
	}
	return false
}

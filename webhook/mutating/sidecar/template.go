package sidecar

import (
	"path"
	"slices"

	"github.com/sluice-data/sluice/webhook/snapshot"
	corev1 "k8s.io/api/core/v1"
)

// withoutVolumes returns tmpl without the named volumes and the container's
// mounts of them (the cache directories a Pod does not keep). tmpl itself
// is shared and left unchanged.
func withoutVolumes(tmpl *snapshot.FuseTemplate, names []string) *snapshot.FuseTemplate {
	if len(names) == 0 {
		return tmpl
	}
	out := &snapshot.FuseTemplate{Container: *tmpl.Container.DeepCopy()}
	for _, v := range tmpl.Volumes {
		if !slices.Contains(names, v.Name) {
			out.Volumes = append(out.Volumes, *v.DeepCopy())
		}
	}
	mounts := out.Container.VolumeMounts[:0]
	for _, m := range out.Container.VolumeMounts {
		if !slices.Contains(names, m.Name) {
			mounts = append(mounts, m)
		}
	}
	out.Container.VolumeMounts = mounts
	devices := out.Container.VolumeDevices[:0]
	for _, d := range out.Container.VolumeDevices {
		if !slices.Contains(names, d.Name) {
			devices = append(devices, d)
		}
	}
	out.Container.VolumeDevices = devices
	return out
}

// withHostDir returns tmpl with its host mount volume moved to the Pod's
// own directory u.Dir/u.Suffix. tmpl itself is shared and left unchanged.
func withHostDir(tmpl *snapshot.FuseTemplate, u uniqueHost) *snapshot.FuseTemplate {
	out := &snapshot.FuseTemplate{Container: tmpl.Container, Volumes: make([]corev1.Volume, 0, len(tmpl.Volumes))}
	for _, v := range tmpl.Volumes {
		v = *v.DeepCopy()
		if v.Name == u.Volume && v.HostPath != nil {
			v.HostPath.Path = path.Join(u.Dir, u.Suffix)
		}
		out.Volumes = append(out.Volumes, v)
	}
	return out
}

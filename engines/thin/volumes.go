package thin

import (
	"path"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines"
)

// Chart-owned names a user's volumes and mounts may not take.
const (
	volFuseMount = "thin-fuse-mount"
	volDevFuse   = "thin-dev-fuse"
	volConfig    = "thin-config"
	devFuse      = "/dev/fuse"
)

// reservedMounts are the container paths the chart mounts, with what each is.
func reservedMounts(secrets []secretMount, cache []cacheVolume, extra map[string]string) map[string]string {
	out := map[string]string{ConfigDir: "the FUSE config"}
	for _, s := range secrets {
		out[s.MountPath] = "Secret " + s.SecretName
	}
	for _, c := range cache {
		out[c.Path] = "a tieredstore path"
	}
	for p, what := range extra {
		out[p] = what
	}
	return out
}

// userVolumes checks a component's volumeMounts against the chart's mounts
// and returns the volumes they name, in order of first use.
func userVolumes(field, where string, mounts []corev1.VolumeMount, volumes []corev1.Volume, reserved map[string]string,
	secrets []secretMount, cache []cacheVolume) ([]corev1.Volume, error) {
	taken := map[string]bool{volFuseMount: true, volDevFuse: true, volConfig: true}
	for _, s := range secrets {
		taken[s.Volume] = true
	}
	for _, c := range cache {
		taken[c.Name] = true
	}
	byName := map[string]corev1.Volume{}
	for _, v := range volumes {
		byName[v.Name] = v
	}
	var out []corev1.Volume
	used := map[string]bool{}
	for _, m := range mounts {
		if what, ok := reserved[path.Clean(m.MountPath)]; ok {
			return nil, engines.Invalid("%s: %s mountPath %q is where the chart mounts %s", where, field, m.MountPath, what)
		}
		if taken[m.Name] {
			return nil, engines.Invalid("%s: %s (mountPath %s) names volume %q, a name the chart uses for its own volumes", where, field, m.MountPath, m.Name)
		}
		v, ok := byName[m.Name]
		if !ok {
			return nil, engines.Invalid("%s: %s (mountPath %s) names volume %q, which is in neither the runtime's nor the profile's spec.volumes",
				where, field, m.MountPath, m.Name)
		}
		if !used[m.Name] {
			used[m.Name] = true
			out = append(out, v)
		}
	}
	return out, nil
}

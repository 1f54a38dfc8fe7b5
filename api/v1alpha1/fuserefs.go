package v1alpha1

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// The ConfigMaps and Secrets a FUSE container reads. The mutating webhook
// injects a runtime's FUSE container (the first container of its FUSE
// DaemonSet, with the volumes it mounts) as a sidecar; in the namespace of
// a reference dataset those objects do not exist, so the controller copies
// the ConfigMaps there (ReferenceCopyName) and the webhook renames them in
// the sidecar (RenameConfigMaps). Secrets are not copied: a Secret stays a
// Secret of the namespace that holds it.

// ObjectsReadBy are the names of the ConfigMaps and the Secrets container c
// reads through its env, its envFrom and the volumes of vols it mounts,
// each sorted and once. Optional references count too.
func ObjectsReadBy(c *corev1.Container, vols []corev1.Volume) (configMaps, secrets []string) {
	add := func(list *[]string, name string) {
		if name != "" && !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	forEachRef(c, vols, func(cm *string) { add(&configMaps, *cm) }, func(s *string) { add(&secrets, *s) })
	slices.Sort(configMaps)
	slices.Sort(secrets)
	return configMaps, secrets
}

// RenameConfigMaps rewrites, in place, every ConfigMap name container c
// reads through its env, its envFrom and the volumes of vols it mounts to
// rename(name).
func RenameConfigMaps(c *corev1.Container, vols []corev1.Volume, rename func(string) string) {
	forEachRef(c, vols, func(cm *string) { *cm = rename(*cm) }, func(*string) {})
}

// forEachRef calls cm with each ConfigMap name and secret with each Secret
// name c reads (pointers into c and vols).
func forEachRef(c *corev1.Container, vols []corev1.Volume, cm, secret func(*string)) {
	for i := range c.Env {
		if f := c.Env[i].ValueFrom; f != nil {
			if f.ConfigMapKeyRef != nil {
				cm(&f.ConfigMapKeyRef.Name)
			}
			if f.SecretKeyRef != nil {
				secret(&f.SecretKeyRef.Name)
			}
		}
	}
	for i := range c.EnvFrom {
		if r := c.EnvFrom[i].ConfigMapRef; r != nil {
			cm(&r.Name)
		}
		if r := c.EnvFrom[i].SecretRef; r != nil {
			secret(&r.Name)
		}
	}
	mounted := map[string]bool{}
	for _, m := range c.VolumeMounts {
		mounted[m.Name] = true
	}
	for _, d := range c.VolumeDevices {
		mounted[d.Name] = true
	}
	for i := range vols {
		v := &vols[i]
		if !mounted[v.Name] {
			continue
		}
		if v.ConfigMap != nil {
			cm(&v.ConfigMap.Name)
		}
		if v.Secret != nil {
			secret(&v.Secret.SecretName)
		}
		if v.Projected != nil {
			for j := range v.Projected.Sources {
				s := &v.Projected.Sources[j]
				if s.ConfigMap != nil {
					cm(&s.ConfigMap.Name)
				}
				if s.Secret != nil {
					secret(&s.Secret.Name)
				}
			}
		}
	}
}

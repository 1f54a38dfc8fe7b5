package sidecar

import (
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// withSubPath gives every container mount of the named volume the
// dataset's sub-path sub (audit N2): the volume becomes a hostPath of the
// FUSE mount itself, and the kubelet resolves a mount's subPath inside it
// refusing symbolic links that lead out of the volume, where a sub-path in
// the hostPath would be followed wherever the FUSE program's links lead. A
// mount with a subPath (or subPathExpr) of its own gets the two joined,
// the dataset's first. A ".." component in either is refused.
func withSubPath(pod *corev1.Pod, volume, sub string) error {
	ds, err := relativeSubPath(sub)
	if err != nil {
		return fmt.Errorf("volume %q: the dataset's sub-path %q: %w", volume, sub, err)
	}
	if ds == "" {
		return nil
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for c := range cs {
			for i := range cs[c].VolumeMounts {
				m := &cs[c].VolumeMounts[i]
				if m.Name != volume {
					continue
				}
				own := &m.SubPath
				if m.SubPathExpr != "" {
					own = &m.SubPathExpr
				}
				rel, err := relativeSubPath(*own)
				if err != nil {
					return fmt.Errorf("volume %q: container %q mounts it at %s with sub-path %q: %w", volume, cs[c].Name, m.MountPath, *own, err)
				}
				*own = path.Join(ds, rel)
			}
		}
	}
	return nil
}

// relativeSubPath is p clean and relative ("" for none), or an error if p
// has a ".." component.
func relativeSubPath(p string) (string, error) {
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", fmt.Errorf(`a sub-path may not contain ".."`)
	}
	clean := strings.TrimPrefix(path.Clean("/"+p), "/")
	return clean, nil
}

package dataop

import (
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/sluice-data/sluice/engines"
)

// Location is a directory outside the cache a pod reads or writes: a
// local:// host directory or a pvc://<claim>[/<subpath>] volume.
type Location struct {
	// Volume is the pod volume named as ParseLocation was told.
	Volume corev1.Volume
	// SubPath is the directory inside the claim ("" for its root or a host
	// directory).
	SubPath string
}

// ParseLocation reads uri, a local:///<host path> or
// pvc://<claim>[/<subpath>], as the pod volume name. field names uri in
// errors.
func ParseLocation(field, uri, name string) (Location, error) {
	switch {
	case strings.HasPrefix(uri, "local://"):
		dir := strings.TrimPrefix(uri, "local://")
		if !path.IsAbs(dir) {
			return Location{}, engines.Invalid("%s %q: local:// takes an absolute host path, e.g. local:///mnt/backup", field, uri)
		}
		hostPathType := corev1.HostPathDirectoryOrCreate
		return Location{Volume: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: &hostPathType}}}}, nil
	case strings.HasPrefix(uri, "pvc://"):
		claim, sub, _ := strings.Cut(strings.TrimPrefix(uri, "pvc://"), "/")
		if errs := validation.IsDNS1123Subdomain(claim); len(errs) > 0 {
			return Location{}, engines.Invalid("%s %q: pvc://<claim>[/<subpath>] needs a claim name: %s", field, uri, strings.Join(errs, "; "))
		}
		sub = strings.Trim(sub, "/")
		for _, part := range strings.Split(sub, "/") {
			if part == ".." {
				return Location{}, engines.Invalid("%s %q: the sub-path may not contain ..", field, uri)
			}
		}
		return Location{Volume: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}, SubPath: sub}, nil
	}
	return Location{}, engines.Invalid("%s %q: use local:///<host path> or pvc://<claim>[/<subpath>]", field, uri)
}

// Mount mounts the location at dir.
func (l Location) Mount(dir string, readOnly bool) corev1.VolumeMount {
	return corev1.VolumeMount{Name: l.Volume.Name, MountPath: dir, SubPath: l.SubPath, ReadOnly: readOnly}
}

package process

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// DatasetVolume is the name of the pod volume of the Dataset's PVC.
const DatasetVolume = "sluice-dataset"

// fields name where the processor's volumes and containers come from.
type fields struct{ volumes, initContainers, containers string }

func fieldsOf(p datav1alpha1.Processor) fields {
	if p.Job != nil {
		return fields{"spec.processor.job.podSpec.volumes", "spec.processor.job.podSpec.initContainers", "spec.processor.job.podSpec.containers"}
	}
	return fields{"spec.processor.script.volumes", "", "spec.processor.script"}
}

// mountDataset adds the Dataset's PVC (named after the Dataset, in its
// namespace) to the pod and mounts it into every container, init
// containers included, at the target's mountPath (its subPath of the
// Dataset when set).
func mountDataset(spec *corev1.PodSpec, claim string, target datav1alpha1.TargetDatasetWithMountPath, f fields) error {
	if !path.IsAbs(target.MountPath) {
		return engines.Invalid("spec.dataset.mountPath %q: an absolute path is required", target.MountPath)
	}
	if path.IsAbs(target.SubPath) || strings.Contains("/"+target.SubPath+"/", "/../") {
		return engines.Invalid("spec.dataset.subPath %q: a relative path inside the Dataset, without ..", target.SubPath)
	}
	for i, v := range spec.Volumes {
		if v.Name == DatasetVolume {
			return engines.Invalid("%s[%d].name: %s is the Dataset's volume", f.volumes, i, DatasetVolume)
		}
	}
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: DatasetVolume,
		VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	mount := corev1.VolumeMount{Name: DatasetVolume, MountPath: target.MountPath, SubPath: target.SubPath}
	for _, list := range []struct {
		field      string
		containers []corev1.Container
	}{{f.initContainers, spec.InitContainers}, {f.containers, spec.Containers}} {
		for i := range list.containers {
			c := &list.containers[i]
			for _, m := range c.VolumeMounts {
				if path.Clean(m.MountPath) == path.Clean(target.MountPath) {
					return engines.Invalid("%s: container %q already mounts %s at spec.dataset.mountPath", fieldAt(list.field, i), c.Name, m.MountPath)
				}
			}
			c.VolumeMounts = append(c.VolumeMounts, mount)
		}
	}
	return nil
}

// fieldAt names the i-th container of a list field; a script's one
// container is the script itself.
func fieldAt(field string, i int) string {
	if strings.HasSuffix(field, ".script") {
		return field + ".volumeMounts"
	}
	return fmt.Sprintf("%s[%d].volumeMounts", field, i)
}

package alluxio

import (
	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Operation implements engines.Engine. DataLoad runs `alluxio fs
// distributedLoad` of each target (after `alluxio fs loadMetadata` when
// asked); DataBackup runs `alluxio fsadmin backup` on the master's node and
// copies the backup to its local:// or pvc:// location. DataMigrate is
// unsupported, as in Fluid: Alluxio has no command copying between its
// namespace and storage it does not mount.
func (e Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	return e.operations().Render("Alluxio", req)
}

// operations build the pods of the operations, in the runtime's image.
func (e Engine) operations() dataop.Builders[*datav1alpha1.AlluxioRuntime] {
	return dataop.Builders[*datav1alpha1.AlluxioRuntime]{
		datav1alpha1.DataLoadKind: func(req engines.OperationRequest, rt *datav1alpha1.AlluxioRuntime) (dataop.Pod, error) {
			return loadPod(rt, req.Op.(*datav1alpha1.DataLoad), e.mainImage(rt))
		},
		datav1alpha1.DataBackupKind: func(req engines.OperationRequest, rt *datav1alpha1.AlluxioRuntime) (dataop.Pod, error) {
			return backupPod(req.Dataset, rt, req.Op.(*datav1alpha1.DataBackup), e.mainImage(rt))
		},
	}
}

// alluxioCommand is the Alluxio command-line client in the image. Its
// launcher hands arguments starting with -D, -X or -agentlib to the JVM,
// split at spaces, so no user string may start so.
const alluxioCommand = "/opt/alluxio/bin/alluxio"

// clientConfigVolume is the runtime's configuration ConfigMap, whose
// alluxio-site.properties tells a client where the masters are.
const clientConfigVolume = "alluxio-config"

// clientContainer is a container of the runtime's image img configured as
// an Alluxio client of it, and the pod volume it mounts.
func clientContainer(rt *datav1alpha1.AlluxioRuntime, img image) (corev1.Container, corev1.Volume) {
	c := dataop.Image{Repository: img.Repository, Tag: img.Tag, PullPolicy: corev1.PullPolicy(img.PullPolicy)}.Container()
	c.VolumeMounts = []corev1.VolumeMount{{Name: clientConfigVolume, MountPath: confDir + "/alluxio-site.properties", SubPath: "alluxio-site.properties", ReadOnly: true}}
	if !rt.Spec.DisablePrometheus {
		// The site properties name this file as the metrics configuration.
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: clientConfigVolume, MountPath: confDir + "/metrics.properties", SubPath: "metrics.properties", ReadOnly: true})
	}
	v := corev1.Volume{Name: clientConfigVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: rt.Name + "-config"}}}}
	return c, v
}

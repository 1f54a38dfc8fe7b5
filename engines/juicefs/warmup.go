package juicefs

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Volumes of the warmup pod.
const (
	// fuseVolume is the host directory holding the Dataset's FUSE mount,
	// mounted at the same path with the host's mounts propagated into the
	// container: warmup asks the FUSE client through the mount's control
	// file, which it opens read-write.
	fuseVolume = "fuse-mount"
	// datasetVolume is the Dataset's PVC. The pod does not read it; using
	// it makes the CSI plugin start the Dataset's FUSE on the pod's node
	// before the pod starts. (Its mount may be read-only, which the
	// control file cannot be opened through.)
	datasetVolume = "dataset"
	datasetMount  = "/sluice/dataset"
)

// warmupPod runs `juicefs warmup` of the target paths (the whole Dataset
// without targets) in the Dataset's FUSE mount on the node the pod runs on:
// a JuiceFS client keeps its cache on its node, so the load warms that
// node, which spec.nodeSelector, spec.affinity or a runAfter affinity
// choose. Options become warmup's flags (timeout: how long it may run).
// loadMetadata needs no step: JuiceFS metadata lives in the metadata
// engine and is always current.
func warmupPod(ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime, dl *datav1alpha1.DataLoad, img dataop.Image) (dataop.Pod, error) {
	fusePath := FusePath(ds.Namespace, ds.Name)
	var paths []string
	for i, t := range dl.Spec.Target {
		if !strings.HasPrefix(t.Path, "/") {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].path %q: a path in the Dataset starts with /", i, t.Path)
		}
		if t.Replicas > 1 {
			return dataop.Pod{}, engines.Invalid("spec.target[%d].replicas is %d: a JuiceFS client caches one copy, on its own node", i, t.Replicas)
		}
		paths = append(paths, dataop.NoExpand(fusePath+t.Path))
	}
	if len(paths) == 0 {
		paths = []string{dataop.NoExpand(fusePath + "/")}
	}
	flags, err := dataop.Flags("spec.options", dl.Spec.Options, timeoutOption)
	if err != nil {
		return dataop.Pod{}, err
	}
	c := img.Container()
	c.Name = "warmup"
	c.Command = append(append(dataop.Args("timeout", timeoutOf(dl.Spec.Options), "juicefs", "warmup"), flags...), paths...)
	c.Resources = dl.Spec.Resources
	hostDir := strings.TrimSuffix(fusePath, "/juicefs-fuse")
	propagation := corev1.MountPropagationHostToContainer
	c.VolumeMounts = []corev1.VolumeMount{
		{Name: fuseVolume, MountPath: hostDir, MountPropagation: &propagation},
		{Name: datasetVolume, MountPath: datasetMount, ReadOnly: true},
	}
	dirType := corev1.HostPathDirectoryOrCreate
	return dataop.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{c},
		Volumes: []corev1.Volume{
			{Name: fuseVolume, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: hostDir, Type: &dirType}}},
			{Name: datasetVolume, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ds.Name, ReadOnly: true}}},
		},
	}}, nil
}

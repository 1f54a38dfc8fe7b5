package alluxio

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// chartVolumes are the volume names the chart gives every pod itself;
// masterOf and workerOf add tier (tier-*) and under-storage volumes, and
// the master its backup directory and restore location.
var chartVolumes = []string{"config", "hadoop-config", restoreVolume, "journal", "job-journal", "fuse-mount", "fuse-device"}

// userMounts are one container's spec.<component>.volumeMounts.
type userMounts struct {
	field  string
	mounts []corev1.VolumeMount
}

// addUserVolumes adds to a pod the spec.volumes its containers' mounts
// name (as Fluid does: a volume no container of the pod mounts is left
// out), after checking that each mount names one and that no user volume
// takes a name the pod already uses.
func addUserVolumes(rt *datav1alpha1.AlluxioRuntime, pod []corev1.Volume, containers ...userMounts) ([]corev1.Volume, error) {
	used := map[string]bool{}
	for _, c := range containers {
		for i, m := range c.mounts {
			if !slices.ContainsFunc(rt.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name }) {
				return nil, engines.Invalid("%s[%d] mounts volume %q, which is not in spec.volumes", c.field, i, m.Name)
			}
			used[m.Name] = true
		}
	}
	out := slices.Clone(pod)
	for i, v := range rt.Spec.Volumes {
		if !used[v.Name] {
			continue
		}
		if slices.Contains(chartVolumes, v.Name) || slices.ContainsFunc(pod, func(p corev1.Volume) bool { return p.Name == v.Name }) {
			return nil, engines.Invalid("spec.volumes[%d].name %q is a volume the chart gives the pod; rename it", i, v.Name)
		}
		out = append(out, v)
	}
	return out, nil
}

// apiGatewayMounts are spec.apiGateway.volumeMounts when the gateway runs.
func apiGatewayMounts(s datav1alpha1.AlluxioRuntimeSpec) []corev1.VolumeMount {
	if !s.APIGateway.Enabled {
		return nil
	}
	return s.APIGateway.VolumeMounts
}

// userVolumes adds spec.volumes and the components' volumeMounts to the
// master, worker and FUSE pods.
func userVolumes(rt *datav1alpha1.AlluxioRuntime, r *release) error {
	var err error
	s := rt.Spec
	if r.Master.Volumes, err = addUserVolumes(rt, r.Master.Volumes,
		userMounts{"spec.master.volumeMounts", s.Master.VolumeMounts}, userMounts{"spec.jobMaster.volumeMounts", s.JobMaster.VolumeMounts},
		userMounts{"spec.apiGateway.volumeMounts", apiGatewayMounts(s)}); err != nil {
		return err
	}
	if r.Worker.Volumes, err = addUserVolumes(rt, r.Worker.Volumes,
		userMounts{"spec.worker.volumeMounts", s.Worker.VolumeMounts}, userMounts{"spec.jobWorker.volumeMounts", s.JobWorker.VolumeMounts}); err != nil {
		return err
	}
	if r.Fuse.Volumes, err = addUserVolumes(rt, nil, userMounts{"spec.fuse.volumeMounts", s.Fuse.VolumeMounts}); err != nil {
		return err
	}
	r.Master.VolumeMounts = append(r.Master.VolumeMounts, s.Master.VolumeMounts...)
	r.Master.JobMaster.VolumeMounts = s.JobMaster.VolumeMounts
	r.Worker.VolumeMounts = append(r.Worker.VolumeMounts, s.Worker.VolumeMounts...)
	r.Worker.JobWorker.VolumeMounts = s.JobWorker.VolumeMounts
	r.Fuse.VolumeMounts = s.Fuse.VolumeMounts
	return nil
}

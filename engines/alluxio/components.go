package alluxio

import (
	"fmt"
	"path"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// mainImage is the master and worker image: spec.alluxioVersion over the
// default (as e.Images set it).
func (e Engine) mainImage(rt *datav1alpha1.AlluxioRuntime) image {
	img := image{PullPolicy: string(corev1.PullIfNotPresent)}
	img.Repository, img.Tag = e.Images.Resolve(DefaultImages[0])
	v := rt.Spec.AlluxioVersion
	img.Repository, img.Tag, img.PullPolicy = or(v.Image, img.Repository), or(v.ImageTag, img.Tag), or(v.ImagePullPolicy, img.PullPolicy)
	return img
}

// fuseImage is spec.fuse's image, defaulting to the master and worker one.
func fuseImage(rt *datav1alpha1.AlluxioRuntime, main image) image {
	f := rt.Spec.Fuse
	return image{Repository: or(f.Image, main.Repository), Tag: or(f.ImageTag, main.Tag), PullPolicy: or(f.ImagePullPolicy, main.PullPolicy)}
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Masters and workers use the pod network unless their networkMode is
// HostNetwork (Fluid's default; docs/engines.md says why Sluice's is not).
// On the host network their ports are the ones the controller allocated
// (hostports.go).

// masterOf is the master pod: the master (which mounts the root under
// storage, reading its secret options from the environment, and starts
// from the Dataset's restore location rs, if any), the job master, and the
// sidecar that mounts nested under storages.
func masterOf(rt *datav1alpha1.AlluxioRuntime, replicas int32, u ufs, ports map[string]map[string]int, rs *restore) masterValues {
	m, jm := rt.Spec.Master, rt.Spec.JobMaster
	self := "$(POD_NAME)." + masterDomain(rt)
	flags := append([]string{"-Dalluxio.master.hostname=" + self}, rs.flags()...)
	for _, s := range u.rootSecrets {
		flags = append(flags, fmt.Sprintf("-D%soption.%s=$(%s)", rootOptionPrefix, s.option, s.env))
	}
	v := masterValues{
		podValues: newPod(rt, m.NetworkMode == datav1alpha1.HostNetworkMode, m.NodeSelector, m.PodMetadata, m.ImagePullSecrets),
		containerValues: containerValues{Resources: m.Resources, Ports: ports["master"], Env: (&envBuilder{}).field("POD_NAME", "metadata.name").
			add(secretEnv(u.rootSecrets)...).javaOpts("ALLUXIO_MASTER_JAVA_OPTS", flags, rt.Spec.JvmOptions, m.JvmOptions).
			runAs(rt.Spec.RunAs).user(m.Env)},
		Replicas: replicas, HA: replicas > 1,
		Volumes: append([]corev1.Volume{}, u.volumes...), VolumeMounts: append([]corev1.VolumeMount{}, u.mounts...),
		JobMaster: containerValues{Resources: jm.Resources, Ports: ports["jobMaster"], Env: (&envBuilder{}).field("POD_NAME", "metadata.name").
			javaOpts("ALLUXIO_JOB_MASTER_JAVA_OPTS", []string{"-Dalluxio.job.master.hostname=" + self}, rt.Spec.JvmOptions, jm.JvmOptions).
			runAs(rt.Spec.RunAs).user(jm.Env)},
		Mounter: containerValues{Env: (&envBuilder{}).add(secretEnv(u.nestedSecrets)...).user(nil)},
	}
	// The master writes `fsadmin backup --local` backups to its node, where
	// a DataBackup's pod reads them.
	dirType := corev1.HostPathDirectoryOrCreate
	v.Volumes = append(v.Volumes, corev1.Volume{Name: backupVolume, VolumeSource: corev1.VolumeSource{
		HostPath: &corev1.HostPathVolumeSource{Path: BackupHostPath(rt.Namespace, rt.Name), Type: &dirType}}})
	v.VolumeMounts = append(v.VolumeMounts, corev1.VolumeMount{Name: backupVolume, MountPath: BackupDir})
	if u.localRoot {
		v.Volumes = append(v.Volumes, corev1.Volume{Name: "ufs-root", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		v.VolumeMounts = append(v.VolumeMounts, corev1.VolumeMount{Name: "ufs-root", MountPath: localRoot})
	}
	rs.apply(&v)
	return v
}

// workerOf is the worker pod: the worker with its tier and under-storage
// volumes, and the job worker that runs data loads into it. Both register
// under the pod IP.
func workerOf(rt *datav1alpha1.AlluxioRuntime, t tiers, u ufs, ports map[string]map[string]int) workerValues {
	w, jw := rt.Spec.Worker, rt.Spec.JobWorker
	return workerValues{
		podValues: newPod(rt, w.NetworkMode == datav1alpha1.HostNetworkMode, w.NodeSelector, w.PodMetadata, w.ImagePullSecrets),
		containerValues: containerValues{Resources: w.Resources, Ports: ports["worker"], Env: (&envBuilder{}).field("POD_IP", "status.podIP").
			javaOpts("ALLUXIO_WORKER_JAVA_OPTS", []string{"-Dalluxio.worker.hostname=$(POD_IP)", "-Dalluxio.user.hostname=$(POD_IP)"}, rt.Spec.JvmOptions, w.JvmOptions).
			runAs(rt.Spec.RunAs).user(w.Env)},
		Replicas:     rt.Spec.Replicas,
		Volumes:      append(append([]corev1.Volume{}, t.volumes...), u.volumes...),
		VolumeMounts: append(append([]corev1.VolumeMount{}, t.mounts...), u.mounts...),
		JobWorker: containerValues{Resources: jw.Resources, Ports: ports["jobWorker"], Env: (&envBuilder{}).field("POD_IP", "status.podIP").
			javaOpts("ALLUXIO_JOB_WORKER_JAVA_OPTS", []string{"-Dalluxio.job.worker.hostname=$(POD_IP)", "-Dalluxio.worker.hostname=$(POD_IP)", "-Dalluxio.user.hostname=$(POD_IP)"},
				rt.Spec.JvmOptions, jw.JvmOptions).runAs(rt.Spec.RunAs).user(jw.Env)},
	}
}

// fuseOf is the FUSE client, mounting Alluxio's root at FusePath with
// the arguments fuseClient chose.
func fuseOf(ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime, args []string) fuseValues {
	f := rt.Spec.Fuse
	mountPath := FusePath(ds.Namespace, ds.Name)
	// FUSE runs only where the CSI plugin labelled the node for the dataset.
	sel := engines.Merge(f.NodeSelector, map[string]string{datav1alpha1.KeyOf(ds).FuseLabelKey(): "true"})
	return fuseValues{
		podValues: newPod(rt, f.NetworkMode != datav1alpha1.ContainerNetworkMode, sel, f.PodMetadata, f.ImagePullSecrets),
		containerValues: containerValues{Resources: f.Resources, Env: (&envBuilder{}).field("POD_IP", "status.podIP").set("MOUNT_POINT", mountPath).
			javaOpts("ALLUXIO_FUSE_JAVA_OPTS", []string{"-Dalluxio.user.hostname=$(POD_IP)"}, rt.Spec.JvmOptions, f.JvmOptions).user(f.Env)},
		Args: args, HostPath: path.Dir(mountPath), MountPath: mountPath,
	}
}

// readOnly says every mount of the dataset is read-only.
func readOnly(ds *datav1alpha1.Dataset) bool {
	for _, m := range ds.Spec.Mounts {
		if !m.ReadOnly {
			return false
		}
	}
	return true
}

package alluxio

import (
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Where the backup pod mounts spec.backupPath.
const (
	backupTarget     = "/sluice/backup"
	backupTargetName = "backup-target"
)

// BackupFile is the name of a Dataset's metadata backup in its backupPath
// (Fluid's name, which its restore reads).
func BackupFile(ds *datav1alpha1.Dataset) string {
	return fmt.Sprintf("metadata-backup-%s-%s.gz", ds.Name, ds.Namespace)
}

// backupScript runs its arguments after the second (the backup command),
// prints what it printed, and copies the file its "Backup URI" line names,
// found in the directory $1, to the file $2. It reads every value from its
// arguments; none is part of it.
const backupScript = `set -eu
dir=$1; target=$2; shift 2
out=$("$@")
printf '%s\n' "$out"
uri=$(printf '%s\n' "$out" | sed -n 's/^Backup URI *: *//p' | tail -n 1)
if [ -z "$uri" ]; then echo "the backup printed no Backup URI" >&2; exit 1; fi
cp "$dir/${uri##*/}" "$target"
echo "copied to $target"`

// loginName is what Alluxio's launcher passes intact as a -D argument.
var loginName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// backupPod backs the master's metadata up: `alluxio fsadmin backup
// BackupDir --local` makes the master write the backup to its node's
// BackupHostPath, so the pod runs beside the master (required pod
// affinity), reads it there and copies it to spec.backupPath as
// BackupFile. spec.runAs sets the pod's user and group (root without it),
// and its user name Alluxio's login user. A quorum of masters is refused: the leader, which
// writes the backup, is not known when the pod is scheduled.
func backupPod(ds *datav1alpha1.Dataset, rt *datav1alpha1.AlluxioRuntime, db *datav1alpha1.DataBackup, img image) (dataop.Pod, error) {
	if rt.Spec.Master.Replicas > 1 {
		return dataop.Pod{}, engines.Invalid("AlluxioRuntime %s/%s spec.master.replicas is %d: a backup is written on the leading master's node, which the backup pod cannot be placed beside",
			rt.Namespace, rt.Name, rt.Spec.Master.Replicas)
	}
	target, err := dataop.ParseLocation("spec.backupPath", db.Spec.BackupPath, backupTargetName)
	if err != nil {
		return dataop.Pod{}, err
	}
	backup := dataop.Args(alluxioCommand, "fsadmin")
	// Root by default, as the runtime's master starts: the backup path may
	// be a host directory only root can write.
	security := &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](0), RunAsGroup: ptr.To[int64](0)}
	if u := db.Spec.RunAs; u != nil {
		security = &corev1.PodSecurityContext{RunAsUser: u.UID, RunAsGroup: u.GID}
		if u.UserName != "" {
			if !loginName.MatchString(u.UserName) {
				return dataop.Pod{}, engines.Invalid("spec.runAs.user %q: a user name of letters, digits, _, . and -, starting with a letter or _", u.UserName)
			}
			backup = append(backup, dataop.NoExpand("-Dalluxio.security.login.username="+u.UserName))
		}
	}
	backup = append(backup, dataop.Args("backup", BackupDir, "--local")...)
	c, config := clientContainer(rt, img)
	c.Name = "backup"
	c.Command = append(dataop.Args("/bin/sh", "-c", backupScript, "backup", BackupDir, backupTarget+"/"+BackupFile(ds)), backup...)
	c.VolumeMounts = append(c.VolumeMounts,
		corev1.VolumeMount{Name: backupVolume, MountPath: BackupDir, ReadOnly: true},
		target.Mount(backupTarget, false))
	dirType := corev1.HostPathDirectoryOrCreate
	return dataop.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{c},
		Volumes: []corev1.Volume{config,
			{Name: backupVolume, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: BackupHostPath(rt.Namespace, rt.Name), Type: &dirType}}},
			target.Volume},
		SecurityContext:  security,
		ImagePullSecrets: rt.Spec.ImagePullSecrets,
		Affinity: &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey:   "kubernetes.io/hostname",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/instance": rt.Name, "role": "alluxio-master"}},
		}}}},
	}}, nil
}

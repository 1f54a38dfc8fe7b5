package alluxio_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// TestRestoreStartsTheMasterFromTheBackup: a Dataset restored from a
// DataBackup's claim has its masters mount the claim's sub-path read-only
// and initialise their journal from the backup file of the Dataset's
// name; one on a node's disk also runs its masters on that node.
func TestRestoreStartsTheMasterFromTheBackup(t *testing.T) {
	ds, rt := sample()
	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "pvc://backups/imagenet/2024"}
	pod := podOf(t, render(t, ds, rt), "templates/master-statefulset.yaml")
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
		return v.Name == "restore" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "backups"
	}) {
		t.Errorf("master volumes %+v lack the claim backups", pod.Volumes)
	}
	master := pod.Containers[0]
	if !slices.ContainsFunc(master.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == "restore" && m.MountPath == "/sluice/restore" && m.SubPath == "imagenet/2024" && m.ReadOnly
	}) {
		t.Errorf("master mounts %+v lack the backup's sub-path read-only at /sluice/restore", master.VolumeMounts)
	}
	want := "-Dalluxio.master.journal.init.from.backup=/sluice/restore/" + alluxio.BackupFile(ds)
	if i := slices.IndexFunc(master.Env, func(e corev1.EnvVar) bool { return e.Name == "ALLUXIO_MASTER_JAVA_OPTS" }); i < 0 || !strings.Contains(master.Env[i].Value, want) {
		t.Errorf("master env %+v lacks %s", master.Env, want)
	}
	if _, pinned := pod.NodeSelector[corev1.LabelHostname]; pinned {
		t.Errorf("a claim's backup pins the master to a node: %v", pod.NodeSelector)
	}

	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "local:///var/lib/backups", NodeName: "node-7"}
	pod = podOf(t, render(t, ds, rt), "templates/master-statefulset.yaml")
	if pod.NodeSelector[corev1.LabelHostname] != "node-7" || !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool {
		return v.Name == "restore" && v.HostPath != nil && v.HostPath.Path == "/var/lib/backups"
	}) {
		t.Errorf("a local backup: node selector %v, volumes %+v; want node-7 and the host directory", pod.NodeSelector, pod.Volumes)
	}
}

// TestRestoreLocationIsChecked: a local backup without its node, and a
// location of another scheme, are refused naming the field.
func TestRestoreLocationIsChecked(t *testing.T) {
	ds, rt := sample()
	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "local:///var/lib/backups"}
	_, err := alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, "dataset team-a/imagenet spec.dataRestoreLocation: a local:// backup is on one node's disk; set nodeName")
	ds.Spec.DataRestoreLocation = &datav1alpha1.DataRestoreLocation{Path: "s3://backups/imagenet"}
	_, err = alluxio.Engine{}.Values(ds, rt)
	enginetest.WantInvalid(t, err, `dataset team-a/imagenet spec.dataRestoreLocation.path "s3://backups/imagenet": use local:///<host path> or pvc://<claim>[/<subpath>]`)
}

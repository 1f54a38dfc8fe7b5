package alluxio

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Where the master mounts a Dataset's spec.dataRestoreLocation.
const (
	restoreDir    = "/sluice/restore"
	restoreVolume = "restore"
)

// restore is how the masters start from a DataBackup's metadata backup:
// its location mounted read-only at restoreDir, the journal initialised
// from the backup file there, and for a backup on a node's disk, that
// node.
type restore struct {
	volume   corev1.Volume
	mount    corev1.VolumeMount
	flag     string
	nodeName string
}

// planRestore reads the Dataset's spec.dataRestoreLocation (nil without
// one, or without a path, as in Fluid): the location a DataBackup wrote
// BackupFile to, pvc://<claim>[/<subpath>] or local:///<host path> on
// spec.dataRestoreLocation.nodeName. A master whose journal is freshly
// formatted (a new master pod) starts from the backup
// (alluxio.master.journal.init.from.backup); one that has a journal keeps
// it.
func planRestore(ds *datav1alpha1.Dataset) (*restore, error) {
	l := ds.Spec.DataRestoreLocation
	if l == nil || l.Path == "" {
		return nil, nil
	}
	field := "dataset " + ds.Namespace + "/" + ds.Name + " spec.dataRestoreLocation.path"
	loc, err := dataop.ParseLocation(field, l.Path, restoreVolume)
	if err != nil {
		return nil, err
	}
	r := &restore{volume: loc.Volume, mount: loc.Mount(restoreDir, true),
		flag: "-Dalluxio.master.journal.init.from.backup=" + restoreDir + "/" + BackupFile(ds)}
	if strings.HasPrefix(l.Path, "local://") {
		if l.NodeName == "" {
			return nil, engines.Invalid("dataset %s/%s spec.dataRestoreLocation: a local:// backup is on one node's disk; set nodeName to the node the DataBackup wrote it on (its status.infos.BackupLocationNodeName)",
				ds.Namespace, ds.Name)
		}
		r.nodeName = l.NodeName
	}
	return r, nil
}

// apply adds the restore to the master pod, whose JVM flags are built
// with flags.
func (r *restore) apply(m *masterValues) {
	if r == nil {
		return
	}
	m.Volumes = append(m.Volumes, r.volume)
	m.VolumeMounts = append(m.VolumeMounts, r.mount)
	if r.nodeName != "" {
		m.NodeSelector = engines.Merge(m.NodeSelector, map[string]string{corev1.LabelHostname: r.nodeName})
	}
}

// flags are the master's JVM flags the restore needs.
func (r *restore) flags() []string {
	if r == nil {
		return nil
	}
	return []string{r.flag}
}

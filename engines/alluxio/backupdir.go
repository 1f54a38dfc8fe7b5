package alluxio

import "fmt"

// Where the master writes metadata backups (`alluxio fsadmin backup
// --local`): BackupDir in its container, the host directory
// BackupHostPath on its node, where a DataBackup's pod reads them.
const (
	BackupDir      = "/alluxio_backups"
	backupVolume   = "backups"
	backupHostRoot = "/var/lib/sluice/alluxio-backups"
)

// BackupHostPath is the host directory where a runtime's master writes
// metadata backups.
func BackupHostPath(namespace, name string) string {
	return fmt.Sprintf("%s/%s/%s", backupHostRoot, namespace, name)
}

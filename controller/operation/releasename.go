package operation

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// releaseSuffixes end each kind's release names, as Fluid's do.
var releaseSuffixes = map[datav1alpha1.OperationKind]string{
	datav1alpha1.DataLoadKind:    "-loader",
	datav1alpha1.DataMigrateKind: "-migrate",
	datav1alpha1.DataBackupKind:  "-backup",
	datav1alpha1.DataProcessKind: "-processor",
}

// maxReleaseName bounds release names by the longest CronJob name: the
// CronJob controller names each run "<cronjob>-<minutes>", which must stay
// within 63 characters (Helm's own bound, 53, is looser).
const maxReleaseName = 52

// ReleaseName is the Helm release of an operation, which is also the name
// of its Job or CronJob: "<name>-loader" for a DataLoad, "-migrate",
// "-backup", "-processor" for the others. A name that would be longer than
// 52 characters keeps its start and gets a hash of the whole name, so that
// different operations never share a release.
func ReleaseName(kind datav1alpha1.OperationKind, name string) string {
	suffix := releaseSuffixes[kind]
	if len(name)+len(suffix) <= maxReleaseName {
		return name + suffix
	}
	sum := sha256.Sum256([]byte(name))
	hash := hex.EncodeToString(sum[:])[:8]
	keep := maxReleaseName - len(suffix) - len(hash) - 1
	return strings.TrimRight(name[:keep], "-.") + "-" + hash + suffix
}

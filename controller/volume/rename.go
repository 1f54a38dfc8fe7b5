package volume

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Rename is what to do with a dataset's PV of the name Sluice gave
// dataset PVs before Name, and its PVC (whose volumeName cannot change):
// replace the pair by one under Name once no Pod uses the dataset, and
// until then let it serve as it is.
type Rename struct {
	// Wait: Pods use the dataset, the pair stays for now.
	Wait bool
	// Action ("Wait" or "Replace") and Note are the Normal event that says
	// so.
	Action, Note string
}

// PlanRename plans the rename of ds's pvc and pv, users being the Pods
// that use ds (UsersOf).
func PlanRename(ds *datav1alpha1.Dataset, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, users []string) Rename {
	want, dataset := Name(ds), ds.Namespace+"/"+ds.Name
	if len(users) > 0 {
		return Rename{Wait: true, Action: "Wait", Note: fmt.Sprintf(
			"PV %s keeps its earlier name while Pods use Dataset %s (%s); it is replaced, with PVC %s, by PV %s once none does",
			pv.Name, dataset, strings.Join(users, ", "), pvc.Name, want)}
	}
	return Rename{Action: "Replace", Note: fmt.Sprintf("replacing PVC %s and PV %s by a PV named %s: no Pod uses Dataset %s",
		pvc.Name, pv.Name, want, dataset)}
}

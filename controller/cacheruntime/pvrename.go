package cacheruntime

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/sluice-data/sluice/controller/volume"
)

// renameVolumes replaces the Dataset's PVC and PV when the PV has the name
// Sluice gave every dataset's PV before volume.Name ("<namespace>-<name>",
// which Datasets of two namespaces could share). A PVC's volumeName cannot
// change, so the pair is deleted and created anew under the new name once
// no Pod uses the Dataset; until then it keeps serving, and a Normal event
// says so. It reports done when the reconcile goes on with the pair as is.
func (r *Reconciler) renameVolumes(ctx context.Context, s *scope, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) (ctrl.Result, bool, error) {
	users, err := r.datasetUsers(ctx, s)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	want := volume.Name(s.ds)
	if len(users) > 0 {
		r.event(s.rt, corev1.EventTypeNormal, "VolumeRename", "Wait",
			"PV %s keeps its earlier name while Pods use Dataset %s (%s); it is replaced, with PVC %s, by PV %s once none does",
			pv.Name, s.obs.dataset, strings.Join(users, ", "), pvc.Name, want)
		return ctrl.Result{}, true, nil
	}
	r.event(s.rt, corev1.EventTypeNormal, "VolumeRename", "Replace",
		"replacing PVC %s and PV %s by a PV named %s: no Pod uses Dataset %s", pvc.Name, pv.Name, want, s.obs.dataset)
	if err := r.deleteOwned(ctx, s.ds, pvc); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("deleting PVC %s/%s to rename its PV: %w", pvc.Namespace, pvc.Name, err)
	}
	if err := r.deleteOwned(ctx, s.ds, pv); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("deleting PV %s to rename it: %w", pv.Name, err)
	}
	return r.volumeGoing(s, pv)
}

package cacheruntime

import (
	"context"
	"fmt"

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
	plan := volume.PlanRename(s.ds, pvc, pv, users)
	r.event(s.rt, corev1.EventTypeNormal, "VolumeRename", plan.Action, "%s", plan.Note)
	if plan.Wait {
		return ctrl.Result{}, true, nil
	}
	if err := r.deleteOwned(ctx, s.ds, pvc); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("deleting PVC %s/%s to rename its PV: %w", pvc.Namespace, pvc.Name, err)
	}
	if err := r.deleteOwned(ctx, s.ds, pv); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("deleting PV %s to rename it: %w", pv.Name, err)
	}
	return r.volumeGoing(s, pv)
}

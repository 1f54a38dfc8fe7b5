package reference

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
)

// renameVolumes replaces a PV of the name Sluice gave dataset PVs before
// volume.Name (and its PVC, whose volumeName cannot change) once no Pod
// uses the reference dataset; until then the pair serves as it is, and a
// Normal event says so.
func (r *Reconciler) renameVolumes(ctx context.Context, s *scope, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume) (ctrl.Result, bool, error) {
	users, err := volume.Users(ctx, r.Client, r.Live, s.ds.Namespace, s.ds.Name)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	plan := volume.PlanRename(s.ds, pvc, pv, users)
	r.event(s.rt, corev1.EventTypeNormal, "VolumeRename", plan.Action, "%s", plan.Note)
	if plan.Wait {
		return ctrl.Result{}, true, nil
	}
	return r.replaceUnused(ctx, s, pvc, pv, nil, fmt.Sprintf("PV %s has the name Sluice gave dataset PVs before; it is replaced by PV %s", pv.Name, volume.Name(s.ds)))
}

// targetPV is the referenced Dataset's PV, the one Sluice created for it
// under one of its names (volume.Names), or nil.
func (r *Reconciler) targetPV(ctx context.Context, target *datav1alpha1.Dataset) (*corev1.PersistentVolume, error) {
	for _, name := range volume.Names(target) {
		pv := &corev1.PersistentVolume{}
		if found, err := r.get(ctx, types.NamespacedName{Name: name}, pv); err != nil {
			return nil, err
		} else if found && pv.Spec.CSI != nil && volume.Owns(target, pv) {
			return pv, nil
		}
	}
	return nil, nil
}

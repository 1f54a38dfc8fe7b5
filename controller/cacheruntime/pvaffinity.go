package cacheruntime

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/controller/volume"
)

// waitVolumeGone is how often a runtime whose PVC or PV is being deleted
// looks again, to create it anew once it is gone.
const waitVolumeGone = 2 * time.Second

// syncPVNodeAffinity brings the Dataset's existing PV (pv, as stored) to
// the nodeAffinity the FUSE node selector asks for (want, nil for none).
// The API server sets a PV's nodeAffinity when it has none, and refuses to
// change it once set (unless its alpha gate MutablePVNodeAffinity is on),
// so:
//   - a PV without one (created before Sluice wrote it) gets it in place:
//     the Pods using it keep their volume, and new Pods are placed where
//     FUSE runs;
//   - a PV with another one (spec.fuse.nodeSelector changed) is replaced,
//     with its PVC, once no Pod uses the Dataset, and kept until then with a
//     Warning event saying so. The PVC goes first: a bound PV would wait
//     for it anyway (the PV protection controller), and a Pod created
//     meanwhile waits for the new pair.
func (r *Reconciler) syncPVNodeAffinity(ctx context.Context, s *scope, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, want *corev1.VolumeNodeAffinity) (ctrl.Result, bool, error) {
	if equality.Semantic.DeepEqual(pv.Spec.NodeAffinity, want) {
		return ctrl.Result{}, true, nil
	}
	if pv.Spec.NodeAffinity == nil {
		before := pv.DeepCopy()
		pv.Spec.NodeAffinity = want
		if err := r.Client.Patch(ctx, pv, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, false, fmt.Errorf("setting the nodeAffinity of PV %s: %w", pv.Name, err)
		}
		r.event(s.rt, corev1.EventTypeNormal, "VolumeNodeAffinity", "Update", "PV %s now requires the nodes of spec.fuse.nodeSelector", pv.Name)
		return ctrl.Result{}, true, nil
	}
	users, err := r.datasetUsers(ctx, s)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if len(users) > 0 {
		r.event(s.rt, corev1.EventTypeWarning, "VolumeNodeAffinity", "Wait",
			"PV %s keeps its nodeAffinity, which spec.fuse.nodeSelector no longer matches (the API server does not change a PV's nodeAffinity): it is replaced, with PVC %s, once no Pod uses Dataset %s (used by %s)",
			pv.Name, pvc.Name, s.obs.dataset, strings.Join(users, ", "))
		return ctrl.Result{}, true, nil
	}
	r.event(s.rt, corev1.EventTypeNormal, "VolumeNodeAffinity", "Replace",
		"replacing PVC %s and PV %s: spec.fuse.nodeSelector changed, a PV's nodeAffinity cannot be changed in place, and no Pod uses the Dataset", pvc.Name, pv.Name)
	if err := r.deleteOwned(ctx, s.ds, pvc); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("deleting PVC %s/%s to replace it: %w", pvc.Namespace, pvc.Name, err)
	}
	if err := r.deleteOwned(ctx, s.ds, pv); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("deleting PV %s to replace it: %w", pv.Name, err)
	}
	return r.volumeGoing(s, pv)
}

// datasetUsers names the Pods using the runtime's Dataset. None in the
// cache is confirmed by the API server (a Pod just created may not be in
// the cache yet): the answer decides whether the Dataset's volumes may be
// replaced.
func (r *Reconciler) datasetUsers(ctx context.Context, s *scope) ([]string, error) {
	return volume.Users(ctx, r.Client, r.Live, s.rt.GetNamespace(), s.rt.GetName())
}

// volumeGoing stops the reconcile while the Dataset's PVC or PV (obj) is
// being deleted (VolumeBound=False, VolumeReplacing), until it is gone and
// ensureVolumes creates it anew.
func (r *Reconciler) volumeGoing(s *scope, obj client.Object) (ctrl.Result, bool, error) {
	what := "PV " + obj.GetName()
	if _, ok := obj.(*corev1.PersistentVolumeClaim); ok {
		what = "PVC " + obj.GetNamespace() + "/" + obj.GetName()
	}
	s.obs.volumeGoing, s.report = fmt.Sprintf("%s of Dataset %s is being deleted; it is created anew once it is gone", what, s.obs.dataset), true
	return ctrl.Result{RequeueAfter: waitVolumeGone}, false, nil
}

package reference

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
)

// reconcileDelete waits while Pods use the reference dataset (InUse),
// unless the deletion is forced; then it deletes the ConfigMap copies, the
// PVC and the PV, removes the reference from the referenced Dataset's
// status.datasetRef, returns the Dataset to NotBound and releases the
// finalizer. None of it needs the reference dataset or the referenced
// Dataset to exist: the reference is read from the Dataset, or from the
// mounts the runtime's status recorded.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	rt := s.rt
	if !controllerutil.ContainsFinalizer(rt, Finalizer) {
		return ctrl.Result{}, false, nil
	}
	users, err := volume.Users(ctx, r.Client, r.Live, rt.Namespace, rt.Name)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	ds := &datav1alpha1.Dataset{}
	found, err := r.get(ctx, client.ObjectKeyFromObject(rt), ds)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if len(users) > 0 {
		if !datav1alpha1.ForceDeletion(rt) && !(found && !ds.DeletionTimestamp.IsZero() && datav1alpha1.ForceDeletion(ds)) {
			s.obs.inUse = users
			return ctrl.Result{RequeueAfter: waitInUse}, true, nil
		}
		r.event(rt, corev1.EventTypeWarning, "ForceDelete", "Delete", "%s", volume.ForcedNote(users))
	}
	if err := r.deleteCopies(ctx, rt.Namespace, rt.Name, nil); err != nil {
		return ctrl.Result{}, false, err
	}
	if err := volume.DeleteDatasetVolumes(ctx, r.Client, r.Live, rt.Namespace, rt.Name); err != nil {
		return ctrl.Result{}, false, err
	}
	mounts := rt.Status.Mounts
	if found {
		mounts = ds.Spec.Mounts
	}
	if ref, ok := referenceIn(mounts); ok {
		if err := r.forgetReference(ctx, ref, datav1alpha1.DatasetRefName(rt.Namespace, rt.Name)); err != nil {
			return ctrl.Result{}, false, err
		}
	}
	if found && slices.ContainsFunc(ds.Status.Runtimes, func(b datav1alpha1.Runtime) bool { return b.Name == rt.Name && b.Type == runtimeType }) {
		if err := r.writeDataset(ctx, ds, func(d *datav1alpha1.Dataset) datav1alpha1.DatasetStatus { return unboundDatasetStatus(d, rt) }); err != nil {
			return ctrl.Result{}, false, err
		}
	}
	controllerutil.RemoveFinalizer(rt, Finalizer)
	return ctrl.Result{}, false, client.IgnoreNotFound(r.Client.Update(ctx, rt))
}

// referenceIn is the reference of the first dataset:// mount of mounts.
func referenceIn(mounts []datav1alpha1.Mount) (datav1alpha1.DatasetReference, bool) {
	for _, m := range mounts {
		if datav1alpha1.IsReferenceMount(m.MountPoint) {
			ref, err := datav1alpha1.ParseReference(m.MountPoint)
			return ref, err == nil
		}
	}
	return datav1alpha1.DatasetReference{}, false
}

// forgetReference removes name from the referenced Dataset's
// status.datasetRef; a Dataset that is gone has nothing to forget.
func (r *Reconciler) forgetReference(ctx context.Context, ref datav1alpha1.DatasetReference, name string) error {
	target := &datav1alpha1.Dataset{}
	found, err := r.get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, target)
	if err != nil || !found {
		return err
	}
	_, err = r.writeDatasetStatus(ctx, target, func(t *datav1alpha1.Dataset) bool {
		i := slices.Index(t.Status.DatasetRef, name)
		if i < 0 {
			return false
		}
		t.Status.DatasetRef = slices.Delete(t.Status.DatasetRef, i, i+1)
		return true
	})
	if err = client.IgnoreNotFound(err); err != nil {
		return fmt.Errorf("removing %s from the datasetRef of Dataset %s: %w", name, ref.Key(), err)
	}
	return nil
}

package cacheruntime

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/internal/optional"
)

// A ThinRuntime's Dataset that mounts a whole PVC (datav1alpha1.WrappedClaim)
// wraps it: once the Dataset is bound, the PVC carries the Dataset's name
// under datav1alpha1.LabelWrappedByDataset, and the mutating webhook treats
// the Pods that mount the PVC as Pods of the Dataset (Fluid's
// wrapMountedPersistentVolumeClaim). The controller touches only that
// label, and only while it names the Dataset: a PVC another Dataset wraps
// keeps that Dataset's mark (the first one wins, as in Fluid), and the
// mark goes when the Dataset no longer wraps the PVC or its runtime goes.

// wrapClaim marks the PVC the runtime's Dataset wraps and unmarks the PVCs
// of the namespace marked for the Dataset that it no longer wraps (its
// mount changed). It never stops the reconcile: a write that fails is
// logged and tried again by the next one, as is the mark of a PVC that
// does not exist yet.
func (r *Reconciler) wrapClaim(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if r.Engine.Type() != datav1alpha1.WrapRuntimeType {
		return ctrl.Result{}, true, nil
	}
	if err := r.syncWrapMarks(ctx, s.ds); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "keeping the PVC wrap marks of the Dataset")
	}
	return ctrl.Result{}, true, nil
}

func (r *Reconciler) syncWrapMarks(ctx context.Context, ds *datav1alpha1.Dataset) error {
	claim, _ := datav1alpha1.WrappedClaim(ds)
	if err := r.unwrapClaims(ctx, ds.Namespace, ds.Name, claim); err != nil || claim == "" {
		return err
	}
	pvc := &corev1.PersistentVolumeClaim{}
	found, err := optional.Get(ctx, r.Client, types.NamespacedName{Namespace: ds.Namespace, Name: claim}, pvc)
	if err != nil || !found || !wantsMark(pvc) {
		return err
	}
	patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q,"labels":{%q:%q}}}`, pvc.ResourceVersion, datav1alpha1.LabelWrappedByDataset, ds.Name)
	if err := r.Client.Patch(ctx, pvc, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("marking PVC %s/%s as wrapped by Dataset %s: %w", pvc.Namespace, pvc.Name, ds.Name, err)
	}
	return nil
}

// wantsMark reports whether a PVC the Dataset wraps is to be marked: it
// carries no mark yet (another Dataset's stays) and is not being deleted.
func wantsMark(pvc *corev1.PersistentVolumeClaim) bool {
	_, marked := pvc.Labels[datav1alpha1.LabelWrappedByDataset]
	return !marked && pvc.DeletionTimestamp.IsZero()
}

// unwrapClaims removes the mark naming Dataset namespace/name from every
// PVC of the namespace that carries it, but keep (the PVC the Dataset
// still wraps; "" for none). The patch is conditional on the PVC's
// resourceVersion, so a mark changed since it was read is left alone.
func (r *Reconciler) unwrapClaims(ctx context.Context, namespace, name, keep string) error {
	list := &corev1.PersistentVolumeClaimList{}
	if err := r.Client.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels{datav1alpha1.LabelWrappedByDataset: name}); err != nil {
		return fmt.Errorf("listing the PVCs wrapped by Dataset %s/%s: %w", namespace, name, err)
	}
	var errs []error
	for i := range list.Items {
		pvc := &list.Items[i]
		if pvc.Name == keep || pvc.Labels[datav1alpha1.LabelWrappedByDataset] != name {
			continue
		}
		patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q,"labels":{%q:null}}}`, pvc.ResourceVersion, datav1alpha1.LabelWrappedByDataset)
		if err := r.Client.Patch(ctx, pvc, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("unmarking PVC %s/%s wrapped by Dataset %s: %w", namespace, pvc.Name, name, err))
		}
	}
	return errors.Join(errs...)
}

// unwrapGone removes the marks naming the Dataset of a runtime being
// deleted. A refusal (an API server policy that forbids the write) does
// not hold the deletion: it is reported as an event and the mark stays,
// which gives nothing to anyone, since the webhook trusts a mark only for
// a Dataset that exists and wraps the PVC. Other errors are retried.
func (r *Reconciler) unwrapGone(ctx context.Context, rt client.Object) error {
	if r.Engine.Type() != datav1alpha1.WrapRuntimeType {
		return nil
	}
	err := r.unwrapClaims(ctx, rt.GetNamespace(), rt.GetName(), "")
	if err != nil && (apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) {
		r.event(rt, corev1.EventTypeWarning, "UnwrapRefused", "Delete", "%s; the label stays on the PVC and has no effect without the Dataset", err)
		return nil
	}
	return err
}

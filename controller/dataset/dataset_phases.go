package dataset

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
)

// ensureFinalizer adds the finalizer to a Dataset that is not being
// deleted (none may be added then).
func (r *Reconciler) ensureFinalizer(ctx context.Context, ds *datav1alpha1.Dataset) error {
	_, err := r.write(ctx, ds, object, func(d *datav1alpha1.Dataset) bool {
		return d.DeletionTimestamp.IsZero() && controllerutil.AddFinalizer(d, Finalizer)
	})
	if err != nil {
		return fmt.Errorf("adding the finalizer: %w", err)
	}
	return nil
}

// ensurePhase gives a Dataset without a phase the phase NotBound
// (markNotBound); a phase set meanwhile is kept (write's optimistic lock).
func (r *Reconciler) ensurePhase(ctx context.Context, ds *datav1alpha1.Dataset) error {
	_, err := r.write(ctx, ds, status, func(d *datav1alpha1.Dataset) bool {
		return markNotBound(&d.Status, d.Generation)
	})
	if err != nil {
		return fmt.Errorf("setting phase NotBound: %w", err)
	}
	return nil
}

// reconcileDelete waits while Pods use the Dataset or reference datasets
// mount it, then deletes the runtimes bound to it and waits until they are
// gone (their own finalizer cleans up the release, PV, PVC and node
// labels, and returns the Dataset to NotBound), reporting what it waits for
// (Deleting); then it removes the finalizer.
func (r *Reconciler) reconcileDelete(ctx context.Context, ds *datav1alpha1.Dataset) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(ds, Finalizer) {
		return ctrl.Result{}, nil
	}
	users, err := volume.Users(ctx, r.Client, r.Live, ds.Namespace, ds.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(users) > 0 && datav1alpha1.ForceDeletion(ds) {
		r.event(ds, corev1.EventTypeWarning, "ForceDelete", "Delete", "%s", volume.ForcedNote(users))
		users = nil
	}
	refs, err := r.liveReferences(ctx, ds)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(refs) > 0 && datav1alpha1.ForceDeletion(ds) {
		r.event(ds, corev1.EventTypeWarning, "ForceDelete", "Delete",
			"deleting although reference datasets mount the Dataset (%s): %s; they become NotBound", datav1alpha1.AnnotationForceDelete, strings.Join(refs, ", "))
		refs = nil
	}
	d := deletion{users: users, refs: refs}
	if !d.blocked() {
		if d.runtimes, err = r.deleteRuntimes(ctx, ds); err != nil {
			return ctrl.Result{}, err
		}
	}
	w, waiting := waitFor(d)
	if !waiting {
		ctrl.LoggerFrom(ctx).Info("removing the Dataset's finalizer")
		if _, err := r.write(ctx, ds, object, func(d *datav1alpha1.Dataset) bool { return controllerutil.RemoveFinalizer(d, Finalizer) }); err != nil {
			return ctrl.Result{}, fmt.Errorf("removing the finalizer: %w", err)
		}
		return ctrl.Result{}, nil
	}
	wrote, err := r.write(ctx, ds, status, func(d *datav1alpha1.Dataset) bool { return markDeleting(&d.Status, w, d.Generation) })
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reporting the deletion's wait: %w", err)
	}
	if wrote {
		r.event(ds, w.eventType, w.reason, "Delete", "%s", w.message)
	}
	if w.reason == ReasonRuntimeDeleting {
		return ctrl.Result{RequeueAfter: waitRuntimes}, nil
	}
	return ctrl.Result{RequeueAfter: waitBlocked}, nil
}

// deleteRuntimes deletes the runtimes bound to the Dataset (boundRuntimes)
// that are not being deleted yet, each by the UID it was read with, and
// names those not gone yet. A runtime of a type without engine here is
// reported by an event and not waited for.
func (r *Reconciler) deleteRuntimes(ctx context.Context, ds *datav1alpha1.Dataset) ([]string, error) {
	var pending []string
	for _, b := range boundRuntimes(ds) {
		newObj, ok := r.RuntimeKinds[b.Type]
		if !ok {
			r.event(ds, corev1.EventTypeWarning, ReasonUnknownRuntime, "Delete",
				"the Dataset is bound to %s runtime %s, a type with no engine here: its deletion is not waited for", b.Type, b.Name)
			continue
		}
		rt := newObj()
		switch err := r.Client.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: b.Name}, rt); {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading %s runtime %s: %w", b.Type, b.Name, err)
		}
		if rt.GetDeletionTimestamp().IsZero() {
			uid := rt.GetUID()
			ctrl.LoggerFrom(ctx).Info("deleting the Dataset's runtime", "type", b.Type, "runtime", b.Name)
			switch err := r.Client.Delete(ctx, rt, client.Preconditions{UID: &uid}); {
			case apierrors.IsNotFound(err), apierrors.IsConflict(err):
				// Gone, or replaced by another runtime of that name since
				// the cache saw it: not the one bound to this Dataset.
				continue
			case err != nil:
				return nil, fmt.Errorf("deleting %s runtime %s: %w", b.Type, b.Name, err)
			}
		}
		pending = append(pending, b.Type+" runtime "+b.Name)
	}
	return r.runtimesBeingDeleted(ctx, ds, pending)
}

// runtimesBeingDeleted adds to pending the runtimes of the Dataset's name
// that are being deleted although its status no longer lists them: a
// runtime's cleanup returns the Dataset to NotBound just before it
// releases its own finalizer, and the Dataset must not go before it.
func (r *Reconciler) runtimesBeingDeleted(ctx context.Context, ds *datav1alpha1.Dataset, pending []string) ([]string, error) {
	for typ, newObj := range r.RuntimeKinds {
		name := typ + " runtime " + ds.Name
		if slices.Contains(pending, name) {
			continue
		}
		rt := newObj()
		switch err := r.Client.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: ds.Name}, rt); {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
		if !rt.GetDeletionTimestamp().IsZero() {
			pending = append(pending, name)
		}
	}
	slices.Sort(pending)
	return pending, nil
}

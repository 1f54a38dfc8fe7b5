package reference

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// writeRuntimeStatus writes the status computed from the scope's
// observations over the status as stored, if it changed, with the
// runtime's resourceVersion as the patch's precondition. A refused patch
// (the cache was behind) reads the runtime from the API server and
// computes the status again over that, once. Ready's transitions are
// recorded as Events.
func (r *Reconciler) writeRuntimeStatus(ctx context.Context, s *scope) error {
	stored := s.rt
	for attempt := 0; ; attempt++ {
		prev := &stored.Status
		next := runtimeStatus(prev, s.obs)
		if equality.Semantic.DeepEqual(prev, next) {
			return nil
		}
		obj := stored.DeepCopy()
		obj.Status = *next
		err := r.Client.Status().Patch(ctx, obj, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			r.readyEvent(s.rt, meta.FindStatusCondition(prev.Conditions, ConditionReady), meta.FindStatusCondition(next.Conditions, ConditionReady))
			return nil
		case !apierrors.IsConflict(err):
			return client.IgnoreNotFound(err)
		case attempt > 0:
			return fmt.Errorf("writing the status of ThinRuntime %s: %w", client.ObjectKeyFromObject(s.rt), err)
		}
		fresh := &datav1alpha1.ThinRuntime{}
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(s.rt), fresh); err != nil {
			return client.IgnoreNotFound(err)
		}
		stored = fresh
	}
}

// readyEvent records a change of Ready's status or reason: binding is
// Normal, anything else that is not True a Warning.
func (r *Reconciler) readyEvent(rt *datav1alpha1.ThinRuntime, prev, next *metav1.Condition) {
	if next == nil || prev != nil && prev.Status == next.Status && prev.Reason == next.Reason {
		return
	}
	typ := corev1.EventTypeNormal
	if next.Status != metav1.ConditionTrue && next.Reason != ReasonPending && next.Reason != ReasonDatasetNotFound {
		typ = corev1.EventTypeWarning
	}
	r.event(rt, typ, next.Reason, "Reconcile", "%s", next.Message)
}

// writeDatasetStatus applies change to the Dataset as read and, if it
// changed anything, patches its status with the resourceVersion as read
// as the precondition: a list such as status.datasetRef is written whole,
// and another writer's version must not be overwritten. A refused patch
// reads the Dataset from the API server and applies change to that, up to
// three times. On success ds is the Dataset as written.
func (r *Reconciler) writeDatasetStatus(ctx context.Context, ds *datav1alpha1.Dataset, change func(*datav1alpha1.Dataset) bool) (bool, error) {
	stored := ds
	for attempt := 0; ; attempt++ {
		obj := stored.DeepCopy()
		if !change(obj) {
			*ds = *stored
			return false, nil
		}
		err := r.Client.Status().Patch(ctx, obj, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			*ds = *obj
			return true, nil
		case !apierrors.IsConflict(err) || attempt >= 2:
			return false, err
		}
		fresh := &datav1alpha1.Dataset{}
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(ds), fresh); err != nil {
			return false, err
		}
		stored = fresh
	}
}

package cacheruntime

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// writeStatus writes the status computed from the scope's observations
// over the status as stored, if it changed (needsWrite), in one merge
// patch of the fields that changed, with the runtime's resourceVersion as
// read as its precondition (optimistic lock). This controller alone writes
// runtime status, so a refused patch means the cache was behind: most
// often behind this controller's own last write. The runtime is then read
// from the API server, and the status computed again over the stored one:
// a change the last write already made is neither written nor announced
// twice, and no field is left out of the patch because the stale status
// happened to hold its new value. Ready's transitions are recorded as
// Events once written.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) error {
	stored := s.rt
	for attempt := 0; ; attempt++ {
		prev := stored.GetRuntimeStatus()
		next := runtimeStatus(prev, s.obs)
		if !needsWrite(prev, next, s.obs.now) {
			return nil
		}
		obj := stored.DeepCopyObject().(datav1alpha1.RuntimeObject)
		*obj.GetRuntimeStatus() = *next
		err := r.Client.Status().Patch(ctx, obj, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			r.writes.Wrote(client.ObjectKeyFromObject(obj), stored.GetResourceVersion(), obj.DeepCopyObject().(datav1alpha1.RuntimeObject))
			if e, ok := readyEvent(meta.FindStatusCondition(prev.Conditions, ConditionReady), meta.FindStatusCondition(next.Conditions, ConditionReady)); ok {
				r.event(s.rt, e.typ, e.reason, "Reconcile", "%s", e.note)
			}
			return nil
		case !apierrors.IsConflict(err):
			return client.IgnoreNotFound(err)
		case attempt > 0:
			return fmt.Errorf("writing the status of %s: %w", client.ObjectKeyFromObject(s.rt), err)
		}
		fresh := r.Engine.NewObject()
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(s.rt), fresh); err != nil {
			return client.IgnoreNotFound(err)
		}
		stored = fresh
	}
}

// writeDataset writes the Dataset's status computed from the scope's
// observations (datasetStatus) over the status as stored, if it changed,
// in one merge patch with the Dataset's resourceVersion as read as its
// precondition: other parties write the Dataset's status too (the webhook's
// claims, the Dataset controller, a DataMigrate's reconciler), and none of
// their writes may be replaced. A refused patch reads the Dataset from the
// API server and computes the status again over it, once. The Dataset's
// Ready transitions worth telling are recorded as Events (datasetEvent).
func (r *Reconciler) writeDataset(ctx context.Context, s *scope) error {
	stored := s.ds
	for attempt := 0; ; attempt++ {
		next := datasetStatus(stored, s.rt, r.Engine.Type(), s.obs)
		if equality.Semantic.DeepEqual(stored.Status, next) {
			return nil
		}
		obj := stored.DeepCopy()
		obj.Status = next
		err := r.Client.Status().Patch(ctx, obj, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			if e, ok := datasetEvent(meta.FindStatusCondition(stored.Status.Conditions, ConditionReady), meta.FindStatusCondition(next.Conditions, ConditionReady)); ok {
				r.event(obj, e.typ, e.reason, "Reconcile", "%s", e.note)
			}
			*s.ds = *obj
			return nil
		case !apierrors.IsConflict(err):
			return client.IgnoreNotFound(err)
		case attempt > 0:
			return fmt.Errorf("writing the status of Dataset %s: %w", client.ObjectKeyFromObject(s.ds), err)
		}
		fresh := &datav1alpha1.Dataset{}
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(s.ds), fresh); err != nil {
			return client.IgnoreNotFound(err)
		}
		stored = fresh
	}
}

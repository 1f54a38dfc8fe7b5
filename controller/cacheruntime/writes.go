package cacheruntime

import (
	"context"
	"fmt"

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

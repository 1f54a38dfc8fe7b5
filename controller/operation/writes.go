package operation

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// writeStatus writes the status computed from the scope's observations
// over the status as stored, if it changed, in one merge patch with the
// operation's resourceVersion as read as its precondition. Refused because
// the cache was behind (most often behind this controller's own last
// write), it reads the operation from the API server: if its phase moved
// on since the read this reconcile acted on, the observations may be
// behind too, and nothing is written (skipped: the write that moved it
// wakes another reconcile, and the caller requeues); otherwise it computes
// the status again over the stored one, so that no transition is written
// or announced twice. Each transition is recorded as an Event once
// written.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) (skipped bool, _ error) {
	stored := s.op
	for attempt := 0; ; attempt++ {
		prev := stored.GetOperationStatus()
		next := operationStatus(prev, s.obs)
		if equality.Semantic.DeepEqual(prev, next) {
			return false, nil
		}
		obj := stored.DeepCopyObject().(datav1alpha1.OperationObject)
		*obj.GetOperationStatus() = *next
		err := r.Client.Status().Patch(ctx, obj, client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{}))
		switch {
		case err == nil:
			r.writes.Wrote(client.ObjectKeyFromObject(s.op), stored.GetResourceVersion(), r.clock())
			if sum, typ, ok := transition(prev, next); ok {
				r.event(s.op, typ, sum.reason, string(sum.phase), "%s", sum.message)
			}
			return false, nil
		case !apierrors.IsConflict(err):
			return false, client.IgnoreNotFound(err)
		case attempt > 0:
			return false, fmt.Errorf("writing the status of %s %s: %w", r.Kind, client.ObjectKeyFromObject(s.op), err)
		}
		fresh, _ := datav1alpha1.NewOperation(string(r.Kind))
		if err := r.Live.Get(ctx, client.ObjectKeyFromObject(s.op), fresh); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		if fresh.GetOperationStatus().Phase != s.op.GetOperationStatus().Phase {
			return true, nil
		}
		stored = fresh
	}
}

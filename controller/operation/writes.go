package operation

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
)

// writeStatus writes the status computed from the scope's observations
// over the status as stored, if it changed, in one merge patch with the
// operation's resourceVersion as read as its precondition
// (statuspatch.Write). Refused because the cache was behind (most often
// behind this controller's own last write), it reads the operation from
// the API server: if its phase moved on since the read this reconcile
// acted on, the observations may be behind too, and nothing is written
// (skipped: the write that moved it wakes another reconcile, and the
// caller requeues); otherwise it computes the status again over the stored
// one, so that no transition is written or announced twice. Each
// transition is recorded as an Event once written.
func (r *Reconciler) writeStatus(ctx context.Context, s *scope) (skipped bool, _ error) {
	phase := s.op.GetOperationStatus().Phase
	prev, written, err := statuspatch.Write(ctx, r.Client, r.Live, s.op, func(op datav1alpha1.OperationObject) bool {
		if op.GetOperationStatus().Phase != phase {
			skipped = true
			return false
		}
		next := operationStatus(op.GetOperationStatus(), s.obs)
		if equality.Semantic.DeepEqual(op.GetOperationStatus(), next) {
			return false
		}
		*op.GetOperationStatus() = *next
		return true
	})
	if written == nil {
		return skipped, client.IgnoreNotFound(err)
	}
	r.writes.Wrote(client.ObjectKeyFromObject(s.op), prev.GetResourceVersion(), r.clock())
	if sum, typ, ok := transition(prev.GetOperationStatus(), written.GetOperationStatus()); ok {
		r.event(s.op, typ, sum.reason, string(sum.phase), "%s", sum.message)
	}
	if phase, took, ok := ended(prev.GetOperationStatus(), written.GetOperationStatus(), s.obs); ok && r.Ends != nil {
		r.Ends.Ended(string(r.Kind), phase, took)
	}
	return false, nil
}

package dataset

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// target says which part of the Dataset a write changes.
type target int

const (
	// object: metadata (the finalizer).
	object target = iota
	// status: the status subresource.
	status
)

// write applies change to the Dataset as read and, if it changed anything,
// writes it in one merge patch with the resourceVersion as read as its
// precondition (optimistic lock): a write of another party in between (the
// runtime controller binding the Dataset, the webhook claiming it) is
// never overwritten. When the patch is refused, the Dataset is read again
// from the API server and change applied to that, once: a change that
// no longer applies (a phase set meanwhile) is not written. On success ds
// is the Dataset as written; wrote says whether a patch was sent and
// accepted. A Dataset that is gone is not an error.
func (r *Reconciler) write(ctx context.Context, ds *datav1alpha1.Dataset, to target, change func(*datav1alpha1.Dataset) bool) (wrote bool, err error) {
	stored := ds
	for attempt := 0; ; attempt++ {
		obj := stored.DeepCopy()
		if !change(obj) {
			return false, nil
		}
		patch := client.MergeFromWithOptions(stored, client.MergeFromWithOptimisticLock{})
		if to == status {
			err = r.Client.Status().Patch(ctx, obj, patch)
		} else {
			err = r.Client.Patch(ctx, obj, patch)
		}
		switch {
		case err == nil:
			*ds = *obj
			return true, nil
		case !apierrors.IsConflict(err):
			return false, client.IgnoreNotFound(err)
		case attempt > 0:
			return false, fmt.Errorf("writing Dataset %s: %w", client.ObjectKeyFromObject(ds), err)
		}
		fresh := &datav1alpha1.Dataset{}
		if err := r.reader().Get(ctx, client.ObjectKeyFromObject(ds), fresh); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		stored = fresh
	}
}

package dataset

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
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
// precondition (statuspatch.Write): a write of another party in between
// (the runtime controller binding the Dataset, the webhook claiming it) is
// never overwritten. When the patch is refused, the Dataset is read again
// from the API server and change applied to that, once: a change that no
// longer applies (a phase set meanwhile) is not written. On success ds is
// the Dataset as written; wrote says whether a patch was sent and
// accepted. A Dataset that is gone is not an error.
func (r *Reconciler) write(ctx context.Context, ds *datav1alpha1.Dataset, to target, change func(*datav1alpha1.Dataset) bool) (wrote bool, err error) {
	var opts []statuspatch.Option
	if to == object {
		opts = append(opts, statuspatch.Object())
	}
	_, written, err := statuspatch.Write(ctx, r.Client, r.reader(), ds, change, opts...)
	if written == nil {
		return false, client.IgnoreNotFound(err)
	}
	*ds = *written
	return true, nil
}

package reference

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
)

// writeRuntimeStatus writes the status computed from the scope's
// observations over the status as stored, if it changed, with the
// runtime's resourceVersion as the patch's precondition
// (statuspatch.Write). A refused patch (the cache was behind) reads the
// runtime from the API server and computes the status again over that,
// once. Ready's transitions are recorded as Events.
func (r *Reconciler) writeRuntimeStatus(ctx context.Context, s *scope) error {
	prev, written, err := statuspatch.Write(ctx, r.Client, r.reader(), s.rt, func(rt *datav1alpha1.ThinRuntime) bool {
		next := runtimeStatus(&rt.Status, s.obs)
		if equality.Semantic.DeepEqual(&rt.Status, next) {
			return false
		}
		rt.Status = *next
		return true
	})
	if written == nil {
		return client.IgnoreNotFound(err)
	}
	r.readyEvent(s.rt, meta.FindStatusCondition(prev.Status.Conditions, ConditionReady), meta.FindStatusCondition(written.Status.Conditions, ConditionReady))
	return nil
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
// as the precondition (statuspatch.Write): a list such as
// status.datasetRef is written whole, and another writer's version must
// not be overwritten. A refused patch reads the Dataset from the API
// server and applies change to that, up to twice (several reference
// datasets may list themselves in one Dataset at once). ds is then the
// Dataset as written, or as last read when change found nothing to do.
func (r *Reconciler) writeDatasetStatus(ctx context.Context, ds *datav1alpha1.Dataset, change func(*datav1alpha1.Dataset) bool) (bool, error) {
	prev, written, err := statuspatch.Write(ctx, r.Client, r.reader(), ds, change, statuspatch.Rereads(2))
	switch {
	case written != nil:
		*ds = *written
		return true, nil
	case err == nil:
		*ds = *prev
	}
	return false, err
}

// writeDataset writes the reference dataset's status that status computes
// from the Dataset as stored, if it differs, with the resourceVersion as
// read as the precondition (statuspatch.Write); ds is then the Dataset as
// written. A Dataset that is gone is not an error.
func (r *Reconciler) writeDataset(ctx context.Context, ds *datav1alpha1.Dataset, status func(*datav1alpha1.Dataset) datav1alpha1.DatasetStatus) error {
	_, written, err := statuspatch.Write(ctx, r.Client, r.reader(), ds, statuspatch.DatasetStatus(status))
	if written != nil {
		*ds = *written
	}
	return client.IgnoreNotFound(err)
}

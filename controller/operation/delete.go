package operation

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/internal/optional"
)

// uninstallPatience is how long a deletion retries a failing Helm
// uninstall before it deletes the workload itself and lets the operation
// go: a deletion never waits for Helm for ever.
const uninstallPatience = time.Minute

// reconcileDelete uninstalls the operation's release (its Job or CronJob
// goes with it, and their pods by background deletion), releases the
// Dataset and removes the finalizer. A release already gone is no
// obstacle, and one of that name that is not the operation's (owner.go) is
// left, with a Warning event; an uninstall that keeps failing (past
// uninstallPatience, or at once in a namespace being deleted) is replaced
// by deleting the workload directly, with a Warning event.
func (r *Reconciler) reconcileDelete(ctx context.Context, op datav1alpha1.OperationObject) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(op, Finalizer) {
		return ctrl.Result{}, nil
	}
	release := ReleaseName(r.Kind, op.GetName())
	if err := r.uninstallOrReport(ctx, op, release, "Delete"); err != nil {
		terminating, nsErr := r.namespaceTerminating(ctx, op.GetNamespace())
		if nsErr != nil {
			return ctrl.Result{}, nsErr
		}
		if !terminating && r.clock().Sub(op.GetDeletionTimestamp().Time) < uninstallPatience {
			return ctrl.Result{}, err
		}
		r.event(op, corev1.EventTypeWarning, "UninstallFailed", "Delete", "%v; deleting the workload %s directly", err, release)
		if err := r.deleteWorkload(ctx, op, release); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.releaseClaim(ctx, op); err != nil {
		return ctrl.Result{}, err
	}
	controllerutil.RemoveFinalizer(op, Finalizer)
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Update(ctx, op))
}

// namespaceTerminating reports whether the namespace is being deleted (or
// is gone).
func (r *Reconciler) namespaceTerminating(ctx context.Context, name string) (bool, error) {
	ns := &corev1.Namespace{}
	found, err := optional.Get(ctx, r.Live, types.NamespacedName{Name: name}, ns)
	if err != nil {
		return false, fmt.Errorf("reading namespace %s: %w", name, err)
	}
	return !found || !ns.DeletionTimestamp.IsZero() || ns.Status.Phase == corev1.NamespaceTerminating, nil
}

// deleteWorkload deletes the operation's Job or CronJob (the one the
// release made, by Helm's release annotation) in the background.
func (r *Reconciler) deleteWorkload(ctx context.Context, op datav1alpha1.OperationObject, release string) error {
	key := types.NamespacedName{Namespace: op.GetNamespace(), Name: release}
	for _, obj := range []client.Object{&batchv1.Job{}, &batchv1.CronJob{}} {
		found, err := optional.Get(ctx, r.Live, key, obj)
		if err != nil {
			return err
		}
		if !found || obj.GetAnnotations()[helm.ReleaseNameAnnotation] != release {
			continue
		}
		if err := r.Live.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s: %w", release, err)
		}
	}
	return nil
}

// reconcileOver ends an operation that is over: its claim is released
// (again, should the last write have missed it), a Cron operation's
// release is removed, and once
// ttlSecondsAfterFinished has passed since it finished it is deleted. A
// Cron operation has no end to count from: its TTL is not applied.
func (r *Reconciler) reconcileOver(ctx context.Context, op datav1alpha1.OperationObject) (ctrl.Result, error) {
	if err := r.releaseClaim(ctx, op); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.stopWorkers(ctx, op); err != nil {
		return ctrl.Result{}, err
	}
	if op.GetPolicy() == datav1alpha1.Cron {
		// A Cron operation that cannot run keeps no CronJob scheduling runs
		// (of its own release: someone else's was reported when the
		// operation failed for it).
		if _, err := r.uninstall(op, ReleaseName(r.Kind, op.GetName())); err != nil {
			return ctrl.Result{}, err
		}
	}
	ttl := op.GetTTLSecondsAfterFinished()
	if ttl == nil || op.GetPolicy() == datav1alpha1.Cron {
		return ctrl.Result{}, nil
	}
	st := op.GetOperationStatus()
	var end time.Time
	if c := meta.FindStatusCondition(st.Conditions, string(st.Phase)); c != nil {
		end = c.LastTransitionTime.Time
	}
	if left := end.Add(time.Duration(*ttl) * time.Second).Sub(r.clock()); left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	ctrl.LoggerFrom(ctx).Info("deleting the operation: ttlSecondsAfterFinished passed", "ttl", *ttl)
	r.event(op, corev1.EventTypeNormal, "Expired", "Delete", "deleted %ds after it finished (ttlSecondsAfterFinished)", *ttl)
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Delete(ctx, op, client.PropagationPolicy(metav1.DeletePropagationBackground)))
}

// terminal reports whether a failure is the operation's own (it cannot run
// at all) rather than a run's: a Cron operation whose last run failed
// runs again at the next schedule, one that cannot run does not.
func terminal(s *datav1alpha1.OperationStatus) bool {
	c := meta.FindStatusCondition(s.Conditions, ConditionFailed)
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason != ReasonJobFailed
}

func (r *Reconciler) event(obj client.Object, typ, reason, action, note string, args ...any) {
	if r.Events != nil {
		r.Events.Eventf(obj, nil, typ, reason, action, note, args...)
	}
}

package claimrelease

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
)

// ReleaseReconciler releases a Dataset's stale holders: operations that
// finished or are being deleted, and operations that do not exist once their
// claim is older than Grace.
type ReleaseReconciler struct {
	// Client reads operations and writes Dataset status.
	Client client.Client
	// Cache, when set, is read first: a Dataset it shows without holders,
	// or held only by operations it shows running, is not read from the
	// API server, nor are its holders (a holder added, or one that
	// finishes, wakes the Dataset again through the watches).
	Cache client.Reader
	// Grace is how long a claim of a missing operation is kept.
	Grace time.Duration
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
}

func (r *ReleaseReconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Reconcile implements reconcile.Reconciler for Datasets.
func (r *ReleaseReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ds := &datav1alpha1.Dataset{}
	if r.Cache != nil {
		if err := r.Cache.Get(ctx, req.NamespacedName, ds); err != nil || !hasHolders(ds) {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		if !r.mayBeStale(ctx, ds) {
			return ctrl.Result{}, nil
		}
	}
	if err := r.Client.Get(ctx, req.NamespacedName, ds); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var requeue time.Duration
	changed := false
	for _, h := range claim.Holders(ds) {
		stale, wait, err := r.stale(ctx, ds.Namespace, h)
		if err != nil {
			return ctrl.Result{}, err
		}
		switch {
		case stale:
			ctrl.LoggerFrom(ctx).Info("releasing the Dataset's claim", "kind", h.Kind, "name", h.Name)
			changed = claim.Release(ds, h.Kind, h.Name) || changed
		case wait > 0 && (requeue == 0 || wait < requeue):
			requeue = wait
		}
	}
	if changed {
		if err := r.Client.Status().Update(ctx, ds); err != nil {
			return ctrl.Result{}, fmt.Errorf("releasing claims on dataset %s: %w", req.NamespacedName, err)
		}
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// stale reports whether a holder no longer holds, or how long until a
// missing operation's claim expires.
func (r *ReleaseReconciler) stale(ctx context.Context, namespace string, h claim.Holder) (bool, time.Duration, error) {
	op, ok := datav1alpha1.NewOperation(h.Kind)
	if !ok {
		return false, 0, nil
	}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: h.Name}, op)
	switch {
	case apierrors.IsNotFound(err):
		if h.Since.IsZero() {
			return true, 0, nil
		}
		left := h.Since.Add(r.Grace).Sub(r.now())
		return left <= 0, left, nil
	case err != nil:
		return false, 0, err
	}
	return op.GetDeletionTimestamp() != nil || op.GetOperationStatus().Finished(), 0, nil
}

// mayBeStale reports whether the cache shows a holder of ds that may no
// longer hold it: one finished, being deleted, or not in the cache (never
// stored, or not cached yet). The API server decides those; a holder the
// cache shows running holds.
func (r *ReleaseReconciler) mayBeStale(ctx context.Context, ds *datav1alpha1.Dataset) bool {
	for _, h := range claim.Holders(ds) {
		op, ok := datav1alpha1.NewOperation(h.Kind)
		if !ok {
			continue // an unknown kind keeps its hold
		}
		if err := r.Cache.Get(ctx, types.NamespacedName{Namespace: ds.Namespace, Name: h.Name}, op); err != nil ||
			op.GetDeletionTimestamp() != nil || op.GetOperationStatus().Finished() {
			return true
		}
	}
	return false
}

// hasHolders reports whether any operation holds the Dataset, as
// claim.Holders reads status.operationRef.
func hasHolders(ds *datav1alpha1.Dataset) bool { return len(claim.Holders(ds)) > 0 }

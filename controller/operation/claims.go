package operation

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/internal/optional"
)

// releaseClaim removes the operation from its Dataset's holders and, for a
// DataMigrate, returns the Dataset from DataMigrating to Bound. The cached
// Dataset is read first: one that shows neither needs no write (a claim
// the cache does not show yet is released by the next reconcile, or as
// stale by the next claimer).
func (r *Reconciler) releaseClaim(ctx context.Context, op datav1alpha1.OperationObject) error {
	ns, name, ok := op.GetTargetDataset()
	if !ok {
		return nil
	}
	key := types.NamespacedName{Namespace: ns, Name: name}
	cached := &datav1alpha1.Dataset{}
	found, err := optional.Get(ctx, r.Client, key, cached)
	if err != nil || !found || !r.holds(cached, op.GetName()) {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds := &datav1alpha1.Dataset{}
		if found, err := optional.Get(ctx, r.Live, key, ds); err != nil || !found {
			return err
		}
		released := claim.Release(ds, string(r.Kind), op.GetName())
		restored := r.Kind == datav1alpha1.DataMigrateKind && restorePhase(ds)
		if !released && !restored {
			return nil
		}
		if err := r.Live.Status().Update(ctx, ds); err != nil {
			return err
		}
		ctrl.LoggerFrom(ctx).Info("released the Dataset", "dataset", key.String(), "phaseRestored", restored)
		return nil
	})
}

// holds reports whether the Dataset shows the operation as a holder, or
// (for a DataMigrate) is still DataMigrating.
func (r *Reconciler) holds(ds *datav1alpha1.Dataset, name string) bool {
	if r.Kind == datav1alpha1.DataMigrateKind && ds.Status.Phase == datav1alpha1.DataMigratingDatasetPhase {
		return true
	}
	for _, h := range claim.Holders(ds) {
		if h.Kind == string(r.Kind) && h.Name == name {
			return true
		}
	}
	return false
}

// setMigrating marks a bound Dataset DataMigrating while a DataMigrate
// holds it (Fluid's phase for a Dataset being written).
func (r *Reconciler) setMigrating(ctx context.Context, key types.NamespacedName) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds := &datav1alpha1.Dataset{}
		if found, err := optional.Get(ctx, r.Live, key, ds); err != nil || !found {
			return err
		}
		if ds.Status.Phase != datav1alpha1.BoundDatasetPhase {
			return nil
		}
		ds.Status.Phase = datav1alpha1.DataMigratingDatasetPhase
		if err := r.Live.Status().Update(ctx, ds); err != nil {
			return fmt.Errorf("marking dataset %s DataMigrating: %w", key, err)
		}
		return nil
	})
}

// restorePhase returns a DataMigrating Dataset to Bound when no DataMigrate
// holds it any more; it reports whether it changed the phase.
func restorePhase(ds *datav1alpha1.Dataset) bool {
	if ds.Status.Phase != datav1alpha1.DataMigratingDatasetPhase {
		return false
	}
	for _, h := range claim.Holders(ds) {
		if h.Kind == string(datav1alpha1.DataMigrateKind) {
			return false
		}
	}
	ds.Status.Phase = datav1alpha1.BoundDatasetPhase
	if len(ds.Status.Runtimes) == 0 {
		ds.Status.Phase = datav1alpha1.NotBoundDatasetPhase
	}
	return true
}

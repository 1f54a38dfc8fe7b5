package claimrelease

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
)

// Reconcilers are the Dataset claim releaser's dependencies.
type Reconcilers struct {
	// Client is the manager's client (cached reads).
	Client client.Client
	// Live reads from and writes to the API server, for claims.
	Live client.Client
	// Grace is how long a claim of a missing operation is kept.
	Grace time.Duration
}

// SetupWithManager registers a release reconciler for Datasets, woken by
// their operations.
func (r *Reconcilers) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || r.Live == nil {
		return errors.New("dataops: Client and Live are required")
	}
	kinds := []string{string(datav1alpha1.DataLoadKind), string(datav1alpha1.DataMigrateKind), string(datav1alpha1.DataBackupKind), string(datav1alpha1.DataProcessKind)}
	toDataset := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, op client.Object) []reconcile.Request {
		ns, name, ok := claim.Target(op)
		if !ok {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
	})
	// Only Datasets that some operation holds have claims to release; the
	// others' changes (binding, cache states) are not this controller's.
	held := predicate.NewPredicateFuncs(func(o client.Object) bool {
		ds, ok := o.(*datav1alpha1.Dataset)
		return !ok || hasHolders(ds)
	})
	b := builder.ControllerManagedBy(mgr).Named("dataset-claims").For(&datav1alpha1.Dataset{}, builder.WithPredicates(held))
	for _, k := range kinds {
		op, _ := datav1alpha1.NewOperation(k)
		b = b.Watches(op, toDataset)
	}
	return b.Complete(&ReleaseReconciler{Client: r.Live, Cache: r.Client, Grace: r.Grace})
}

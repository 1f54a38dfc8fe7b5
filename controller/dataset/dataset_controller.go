package dataset

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/backoff"
)

// Reconciler reconciles Datasets: their initial phase, their finalizer and
// their deletion.
type Reconciler struct {
	// Client is the manager's client (cached reads).
	Client client.Client
	// Live reads a Dataset from the API server when a write was refused
	// because the cache was behind; nil uses Client.
	Live client.Reader
	// RuntimeKinds make a new object of each runtime kind, by the type
	// status.runtimes records (the engines' Type: juicefs, alluxio, …).
	RuntimeKinds map[string]func() datav1alpha1.RuntimeObject
	// Events records why a deletion waits; nil records nothing.
	Events events.EventRecorder
}

// waitBlocked is how often a deletion held by Pods or reference datasets
// looks again (Pods' changes wake it sooner); waitRuntimes how often one
// waiting for its runtime's cleanup does (the runtime's removal wakes it).
const (
	waitBlocked  = 10 * time.Second
	waitRuntimes = 10 * time.Second
)

// Reconcile implements reconcile.Reconciler: get the Dataset; if it is
// being deleted, run the deletion; else ensure the finalizer, fill an
// empty phase with NotBound and, for a reference dataset, its ThinRuntime.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ds := &datav1alpha1.Dataset{}
	if err := r.Client.Get(ctx, req.NamespacedName, ds); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ds.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, ds)
	}
	if err := r.ensureFinalizer(ctx, ds); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensurePhase(ctx, ds); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.ensureReferenceRuntime(ctx, ds)
}

func (r *Reconciler) reader() client.Reader {
	if r.Live != nil {
		return r.Live
	}
	return r.Client
}

func (r *Reconciler) event(ds *datav1alpha1.Dataset, typ, reason, action, note string, args ...any) {
	if r.Events != nil {
		r.Events.Eventf(ds, nil, typ, reason, action, note, args...)
	}
}

// SetupWithManager registers the reconciler, woken by the Datasets that
// need it (watches.go), by the Pods that end while a deleted Dataset waits
// for them, and by the removal of runtimes (a reference dataset's
// ThinRuntime is created again).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || len(r.RuntimeKinds) == 0 {
		return errors.New("dataset reconciler: Client and RuntimeKinds are required")
	}
	b := ctrl.NewControllerManagedBy(mgr).Named("dataset").
		WithOptions(controller.Options{RateLimiter: backoff.RateLimiter()}).
		For(&datav1alpha1.Dataset{}, builder.WithPredicates(needsReconcile)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.deletingDatasetsUsedBy), builder.WithPredicates(podFinished))
	for _, newObj := range r.RuntimeKinds {
		b = b.Watches(newObj(), handler.EnqueueRequestsFromMapFunc(datasetOfRuntime), builder.WithPredicates(removed))
	}
	if err := b.Complete(r); err != nil {
		return fmt.Errorf("building the dataset controller: %w", err)
	}
	return nil
}

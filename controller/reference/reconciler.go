package reference

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/controller/internal/backoff"
)

// Reconciler reconciles the ThinRuntimes without spec.profileName: the
// runtimes of reference datasets.
type Reconciler struct {
	// Client is the manager's client (cached reads).
	Client client.Client
	// Live reads what the cache does not hold (ConfigMaps) and objects
	// again after a write was refused because the cache was behind.
	Live client.Reader
	// RuntimeKinds make a new object of each runtime kind, by the type
	// status.runtimes records: the referenced Dataset's runtime is read
	// through them.
	RuntimeKinds map[string]func() datav1alpha1.RuntimeObject
	// Refresh is how often a bound reference copies the referenced
	// Dataset's and runtime's figures again (their changes wake it too).
	Refresh time.Duration
	// Events records Ready's transitions; nil records nothing.
	Events events.EventRecorder
	// FuseRecords is the namespace of the FUSE records
	// (datav1alpha1.FuseRecord): the ConfigMaps a referenced runtime's
	// record reads are copied for a reference dataset of another
	// namespace. Empty: none is (no other namespace gets a sidecar).
	FuseRecords string
}

// Finalizer is the runtime finalizer, the same as every runtime's.
const Finalizer = cacheruntime.Finalizer

// Serves says whether a ThinRuntime is a reference dataset's (it names
// no ThinRuntimeProfile): this reconciler's, not the Thin engine's.
func Serves(rt *datav1alpha1.ThinRuntime) bool { return rt.Spec.ProfileName == "" }

const (
	waitDataset = 10 * time.Second
	waitInUse   = 10 * time.Second
)

// scope is one reconcile: the runtime as read and what the phases found.
type scope struct {
	rt     *datav1alpha1.ThinRuntime
	ds     *datav1alpha1.Dataset
	ref    datav1alpha1.DatasetReference
	target *datav1alpha1.Dataset
	// targetRuntime is the referenced Dataset's runtime.
	targetRuntime datav1alpha1.RuntimeObject
	obs           observations
}

// Reconcile implements reconcile.Reconciler: get the runtime, ensure the
// finalizer (or clean up), run the phases in order, then write the status
// computed from what they observed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	rt := &datav1alpha1.ThinRuntime{}
	if err := r.Client.Get(ctx, req.NamespacedName, rt); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !Serves(rt) {
		return ctrl.Result{}, nil
	}
	s := &scope{rt: rt, obs: observations{now: time.Now(), generation: rt.Generation}}
	report := true
	defer func() {
		if report && retErr == nil {
			retErr = r.writeRuntimeStatus(ctx, s)
		}
	}()
	if !rt.DeletionTimestamp.IsZero() {
		res, report, retErr = r.reconcileDelete(ctx, s)
		return res, retErr
	}
	if controllerutil.AddFinalizer(rt, Finalizer) {
		if err := r.Client.Update(ctx, rt); err != nil {
			report = false
			return ctrl.Result{}, err
		}
	}
	for _, phase := range []func(context.Context, *scope) (ctrl.Result, bool, error){
		r.findDataset, r.findTarget, r.recordReference, r.copyConfigMaps, r.ensureVolumes, r.bindDataset,
	} {
		res, next, err := phase(ctx, s)
		if err != nil || !next {
			return res, err
		}
	}
	return ctrl.Result{RequeueAfter: r.Refresh}, nil
}

func (r *Reconciler) reader() client.Reader {
	if r.Live != nil {
		return r.Live
	}
	return r.Client
}

func (r *Reconciler) event(obj client.Object, typ, reason, action, note string, args ...any) {
	if r.Events != nil {
		r.Events.Eventf(obj, nil, typ, reason, action, note, args...)
	}
}

// SetupWithManager registers the reconciler, woken by the ThinRuntimes it
// serves, by their Datasets, and by the referenced Datasets (their
// status.datasetRef names the reference datasets to wake).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil || len(r.RuntimeKinds) == 0 {
		return errors.New("reference reconciler: Client and RuntimeKinds are required")
	}
	served := predicate.NewPredicateFuncs(func(o client.Object) bool {
		rt, ok := o.(*datav1alpha1.ThinRuntime)
		return ok && Serves(rt)
	})
	err := ctrl.NewControllerManagedBy(mgr).Named("referencedataset").
		For(&datav1alpha1.ThinRuntime{}, builder.WithPredicates(served, runtimeChanged)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4, RateLimiter: backoff.RateLimiter()}).
		Watches(&datav1alpha1.Dataset{}, handler.EnqueueRequestsFromMapFunc(referencesOf), builder.WithPredicates(datasetChanged)).
		Complete(r)
	if err != nil {
		return fmt.Errorf("building the reference dataset controller: %w", err)
	}
	return nil
}

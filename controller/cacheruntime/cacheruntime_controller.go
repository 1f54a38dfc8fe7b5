package cacheruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/engines"
)

// Reconciler reconciles one runtime kind with one engine.
type Reconciler struct {
	// Client is the manager's client.
	Client client.Client
	// Engine serves the runtime kind (Engine.NewObject) and says everything
	// engine-specific: release, workloads, FUSE volume, cache metrics.
	Engine engines.Engine
	// Helm returns the Helm client for a namespace.
	Helm func(namespace string) (*helm.Client, error)
	// CacheRefresh is how often a bound runtime's cache states are
	// re-read from its pods' metrics; 0 reads them only on changes.
	CacheRefresh time.Duration
	// HTTPClient scrapes the metrics; nil means a client with a 5s timeout.
	HTTPClient *http.Client
	// Live reads objects uncached where a stale read would lose an update
	// (node labels); nil uses Client.
	Live client.Reader
	// Watches are further objects whose changes wake runtimes, e.g. the
	// profiles Thin runtimes start from.
	Watches []Watch
	// Concurrency is how many runtimes reconcile at once (default 1).
	Concurrency int
	// Events records the runtime's Ready transitions and Helm actions; nil
	// records nothing.
	Events events.EventRecorder

	nodes   nodeStates
	written written
	chart   helm.ChartLoader
	// releases spares unchanged runtimes a read of Helm's storage.
	releases helm.Memo
}

func (r *Reconciler) reader() client.Reader {
	if r.Live != nil {
		return r.Live
	}
	return r.Client
}

const (
	// releaseRecheck is how long a release found in sync is trusted
	// without reading Helm's storage again (spec changes are seen at once).
	releaseRecheck = 10 * time.Minute
	waitWorkers    = 5 * time.Second
	waitInUse      = 10 * time.Second
)

// Reconcile implements reconcile.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var rt client.Object = r.Engine.NewObject()
	if err := r.Client.Get(ctx, req.NamespacedName, rt); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// The status as read: the reconcile fills statusOf(rt) in as it
	// observes, and setReady writes what changed from this.
	read := statusOf(rt).DeepCopy()
	if !rt.GetDeletionTimestamp().IsZero() {
		if users, err := r.podsUsing(ctx, rt); err != nil || len(users) > 0 {
			if err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{RequeueAfter: waitInUse}, r.setReady(ctx, rt, read, metav1.ConditionFalse, ReasonInUse,
				fmt.Sprintf("deletion waits for Pods using the Dataset's PVC to finish: %s", strings.Join(users, ", ")))
		}
		return ctrl.Result{}, r.delete(ctx, rt)
	}
	if controllerutil.AddFinalizer(rt, Finalizer) {
		if err := r.Client.Update(ctx, rt); err != nil {
			return ctrl.Result{}, err
		}
		read = statusOf(rt).DeepCopy() // as the API server returned it
	}
	ds := &datav1alpha1.Dataset{}
	if err := r.getDataset(ctx, req.NamespacedName, ds); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{RequeueAfter: 10 * time.Second}, r.setReady(ctx, rt, read, metav1.ConditionFalse, ReasonDatasetNotFound, "waiting for Dataset "+req.String())
		}
		return ctrl.Result{}, err
	}
	if other := boundElsewhere(ds, rt, r.Engine.Type()); other != "" {
		return ctrl.Result{}, r.setReady(ctx, rt, read, metav1.ConditionFalse, ReasonDatasetBound, fmt.Sprintf("Dataset %s is bound to %s", req, other))
	}
	eng, values, err := r.resolve(ctx, ds, rt)
	var engErr *engines.Error
	if errors.As(err, &engErr) {
		return ctrl.Result{}, r.setReady(ctx, rt, read, metav1.ConditionFalse, engErr.Reason, engErr.Error())
	} else if err != nil {
		return ctrl.Result{}, err
	}
	chart, err := r.chart.Load(r.Engine.Chart())
	if err != nil {
		return ctrl.Result{}, err
	}
	hc, err := r.Helm(rt.GetNamespace())
	if err != nil {
		return ctrl.Result{}, err
	}
	log := ctrl.LoggerFrom(ctx)
	desired, memoKey := helm.Desired{Chart: chart, Values: values}, req.String()
	digest, digestErr := desired.Digest() // without one, Helm's storage is always read
	state, act := helm.InSync, helm.ActionNone
	if digestErr != nil || !r.releases.InSync(memoKey, digest) {
		state, act, err = hc.Ensure(ctx, rt.GetName(), desired)
		// In sync as found, or just installed or upgraded to desired.
		if err == nil && digestErr == nil && (state == helm.InSync || act == helm.ActionInstall || act == helm.ActionUpgrade) {
			r.releases.Record(memoKey, digest)
		}
	}
	if act != helm.ActionNone {
		log.Info("engine release", "state", state, "action", act)
		if act != helm.ActionWait {
			r.event(rt, corev1.EventTypeNormal, "Release", string(act), "engine release %s: %s (was %s)", rt.GetName(), act, state)
		}
	}
	if err != nil {
		return ctrl.Result{RequeueAfter: 15 * time.Second}, r.setReady(ctx, rt, read, metav1.ConditionFalse, ReasonReleaseFailed, err.Error())
	}
	waiting, err := r.observeComponents(ctx, eng, rt)
	if err != nil {
		return ctrl.Result{}, err
	}
	if waiting != "" {
		if act != helm.ActionNone && act != helm.ActionWait {
			// The release was just changed: the cache shows its workloads
			// as they were before, if at all. The reconcile their changes
			// wake (or the requeue) writes the status, often straight to
			// Ready when the controller is busy; the release's event says
			// what happened.
			return ctrl.Result{RequeueAfter: waitWorkers}, nil
		}
		return ctrl.Result{RequeueAfter: waitWorkers}, r.setReady(ctx, rt, read, metav1.ConditionFalse, waiting, waitMessages[waiting])
	}
	if err := r.ensureVolumes(ctx, eng, ds, rt); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.bind(ctx, ds, rt); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.labelNodes(ctx, ds, rt); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.observeCache(ctx, eng, ds, rt); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.CacheRefresh}, r.setReady(ctx, rt, read, metav1.ConditionTrue, ReasonBound, "Dataset "+req.String()+" is bound")
}

// getDataset reads the runtime's Dataset from the cache or, when the cache
// does not have it, from the API server: a Dataset and its runtime are
// usually created together, and their informers deliver them in either
// order. Waiting for the cache instead would requeue the runtime behind
// every runtime created after it.
func (r *Reconciler) getDataset(ctx context.Context, key types.NamespacedName, ds *datav1alpha1.Dataset) error {
	err := r.Client.Get(ctx, key, ds)
	if apierrors.IsNotFound(err) && r.Live != nil {
		err = r.Live.Get(ctx, key, ds)
	}
	return err
}

// resolve returns the engine for rt in this reconcile and its chart values.
// An engines.Resolver reads the objects the runtime depends on here, once;
// the rest of the reconcile asks the engine it returned.
func (r *Reconciler) resolve(ctx context.Context, ds *datav1alpha1.Dataset, rt client.Object) (engines.Engine, map[string]any, error) {
	eng := r.Engine
	if res, ok := eng.(engines.Resolver); ok {
		var err error
		if eng, err = res.Resolve(ctx, r.Client, rt); err != nil {
			return nil, nil, err
		}
	}
	values, err := eng.Values(ds, rt)
	return eng, values, err
}

// boundElsewhere names the runtime the Dataset is bound to, if not this one.
func boundElsewhere(ds *datav1alpha1.Dataset, rt client.Object, runtimeType string) string {
	for _, r := range ds.Status.Runtimes {
		if r.Name != rt.GetName() || r.Type != runtimeType {
			return r.Type + " runtime " + r.Name
		}
	}
	return ""
}

// ensureVolumes creates the Dataset's PVC, then its PV bound in advance to
// that PVC by name and UID, so that the PV controller only has to record
// the binding (a PV that names its claim without UID is rewritten first).
func (r *Reconciler) ensureVolumes(ctx context.Context, eng engines.Engine, ds *datav1alpha1.Dataset, rt client.Object) error {
	pvc, err := volume.PVC(ds)
	if err != nil {
		return err
	}
	if err := r.createIfMissing(ctx, pvc); err != nil {
		return fmt.Errorf("creating PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	fuse := eng.Volume(rt)
	pv, err := volume.PV(ds, volume.Spec{
		FluidPath: fuse.Path, MountType: fuse.MountType, ClaimUID: pvc.UID,
		RuntimeName: rt.GetName(), RuntimeNamespace: rt.GetNamespace(), CleanPolicy: string(fuse.CleanPolicy),
	})
	if err != nil {
		return err
	}
	if err := r.createIfMissing(ctx, pv); err != nil {
		return fmt.Errorf("creating PV %s: %w", pv.Name, err)
	}
	return nil
}

// createIfMissing creates obj unless the cache already holds it; obj is
// then the object as stored (when the cache lags behind a create, it is
// left as given).
func (r *Reconciler) createIfMissing(ctx context.Context, obj client.Object) error {
	switch err := r.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); {
	case err == nil:
		return nil
	case !apierrors.IsNotFound(err):
		return err
	}
	if err := r.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// bind marks the Dataset Bound to the runtime.
func (r *Reconciler) bind(ctx context.Context, ds *datav1alpha1.Dataset, rt client.Object) error {
	before := ds.DeepCopy()
	ds.Status.Phase = datav1alpha1.BoundDatasetPhase
	ds.Status.Runtimes = []datav1alpha1.Runtime{{Name: rt.GetName(), Namespace: rt.GetNamespace(), Type: r.Engine.Type(), Category: datav1alpha1.AccelerateCategory}}
	ds.Status.Mounts = ds.Spec.Mounts
	meta.SetStatusCondition(&ds.Status.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonBound,
		Message: fmt.Sprintf("bound to %s runtime %s", r.Engine.Type(), rt.GetName()), ObservedGeneration: ds.Generation})
	if equality.Semantic.DeepEqual(before.Status, ds.Status) {
		return nil
	}
	return r.Client.Status().Patch(ctx, ds, client.MergeFrom(before))
}

// setReady writes the runtime's Ready condition and status counts; read is
// rt's status as this reconcile read it, before it filled statusOf(rt) in.
func (r *Reconciler) setReady(ctx context.Context, rt client.Object, read *datav1alpha1.RuntimeStatus, status metav1.ConditionStatus, reason, msg string) error {
	s := statusOf(rt)
	last, recent := r.written.recent(rt.GetUID(), progressEvery)
	if recent {
		// This controller alone writes the runtime's conditions, and the
		// cache may not show its last write yet: a transition is neither
		// recorded nor written twice.
		s.Conditions = slices.Clone(last.Conditions)
	}
	prev := meta.FindStatusCondition(s.Conditions, ConditionReady)
	// A new runtime starting to wait is no news (its release event says it
	// started); every later change of state is an event.
	starting := prev == nil && waitMessages[reason] != ""
	if !starting && (prev == nil || prev.Status != status || prev.Reason != reason) {
		typ := corev1.EventTypeNormal
		if status != metav1.ConditionTrue && waitMessages[reason] == "" && reason != ReasonDatasetNotFound {
			typ = corev1.EventTypeWarning
		}
		r.event(rt, typ, reason, "Reconcile", "%s", msg)
	}
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: status, Reason: reason, Message: msg, ObservedGeneration: rt.GetGeneration()})
	s.ObservedGeneration = rt.GetGeneration()
	// What the API server holds: the status this controller wrote last,
	// while the cache may not show it yet (this controller alone writes
	// runtime status, so nothing newer is stored), else the status as this
	// reconcile read it. Reading the runtime again would show no more: the
	// cache is at best at the last write.
	stored := read
	if recent {
		stored = last
	}
	// Steady state rewrites nothing; a waiting runtime's progress figures
	// wait a while.
	if equality.Semantic.DeepEqual(stored, s) || recent && waitMessages[reason] != "" && progressOnly(last, s) {
		return nil
	}
	// Only the status fields that changed from the stored status are
	// patched (no conflicts with concurrent writers of others): the base is
	// this object with that status. (A base with the stale status read
	// would leave out a field that changed back to its stale value.)
	base := rt.DeepCopyObject().(client.Object)
	*statusOf(base) = *stored.DeepCopy()
	if err := r.Client.Status().Patch(ctx, rt, client.MergeFrom(base)); err != nil {
		return client.IgnoreNotFound(err)
	}
	r.written.record(rt.GetUID(), statusOf(rt))
	return nil
}

func (r *Reconciler) event(rt client.Object, typ, reason, action, note string, args ...any) {
	if r.Events != nil {
		r.Events.Eventf(rt, nil, typ, reason, action, note, args...)
	}
}

// delete uninstalls the release, removes the PVC and PV, returns the
// Dataset to NotBound and releases the finalizer.
func (r *Reconciler) delete(ctx context.Context, rt client.Object) error {
	if !controllerutil.ContainsFinalizer(rt, Finalizer) {
		return nil
	}
	hc, err := r.Helm(rt.GetNamespace())
	if err != nil {
		return err
	}
	r.releases.Forget(client.ObjectKeyFromObject(rt).String())
	r.written.forget(rt.GetUID())
	if err := hc.Uninstall(rt.GetName()); err != nil {
		return err
	}
	ds := &datav1alpha1.Dataset{}
	err = r.Client.Get(ctx, client.ObjectKeyFromObject(rt), ds)
	key, found := datav1alpha1.DatasetKey{Namespace: rt.GetNamespace(), Name: rt.GetName()}, (*datav1alpha1.Dataset)(nil)
	if err == nil {
		key, found = datav1alpha1.KeyOf(ds), ds
	}
	if err := r.unlabelNodes(ctx, key, r.cacheLabels(key, found, rt), nil); err != nil {
		return err
	}
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	default:
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ds.Namespace, Name: ds.Name}}
		if err := r.Client.Delete(ctx, pvc); client.IgnoreNotFound(err) != nil {
			return err
		}
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: volume.Name(ds)}}
		if err := r.Client.Delete(ctx, pv); client.IgnoreNotFound(err) != nil {
			return err
		}
		patch := client.MergeFrom(ds.DeepCopy())
		ds.Status.Phase, ds.Status.Runtimes, ds.Status.CacheStates, ds.Status.Mounts = datav1alpha1.NotBoundDatasetPhase, nil, nil, nil
		meta.SetStatusCondition(&ds.Status.Conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: "RuntimeDeleted",
			Message: fmt.Sprintf("%s runtime %s was deleted", r.Engine.Type(), rt.GetName()), ObservedGeneration: ds.Generation})
		if err := r.Client.Status().Patch(ctx, ds, patch); err != nil {
			return err
		}
	}
	controllerutil.RemoveFinalizer(rt, Finalizer)
	return r.Client.Update(ctx, rt)
}

// SetupWithManager registers the reconciler, woken by its runtime kind, the
// Dataset of the same name, the StatefulSets of its release (by Helm's
// release annotations), its engine's pods and the Pods that mount its
// Dataset's PVC (watches.go says which changes count).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, name string) error {
	r.releases.TTL = releaseRecheck
	if r.Client == nil || r.Engine == nil || r.Helm == nil {
		return errors.New("runtime reconciler: Client, Engine and Helm are required")
	}
	b := ctrl.NewControllerManagedBy(mgr).Named(name).
		For(r.Engine.NewObject(), builder.WithPredicates(runtimeChanged)).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(1, r.Concurrency)}).
		Watches(&datav1alpha1.Dataset{}, handler.EnqueueRequestsFromMapFunc(sameName), builder.WithPredicates(datasetChanged)).
		Watches(&appsv1.StatefulSet{}, handler.EnqueueRequestsFromMapFunc(releaseRequests), builder.WithPredicates(statefulSetChanged)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podRequests), builder.WithPredicates(podChanged))
	for _, w := range r.Watches {
		b = b.Watches(w.Object, handler.EnqueueRequestsFromMapFunc(w.Map))
	}
	return b.Complete(r)
}

// Watch wakes the runtimes Map returns when an Object of its kind changes.
type Watch struct {
	Object client.Object
	Map    handler.MapFunc
}

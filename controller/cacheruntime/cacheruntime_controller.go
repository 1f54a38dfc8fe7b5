package cacheruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/hostports"
	"github.com/sluice-data/sluice/controller/internal/backoff"
	"github.com/sluice-data/sluice/controller/internal/ownwrites"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
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
	// MetadataJob configures the metadata Jobs that count the Datasets of
	// engines whose metrics do not report their usage (engines.Metadata);
	// without an Image none runs.
	MetadataJob ufsmeta.Options
	// MetadataRefresh is how often a Dataset's metadata Job counts it
	// again; 0 counts it once, as Fluid does (and again when its spec
	// changes or a DataLoad with loadMetadata completes).
	MetadataRefresh time.Duration
	// HTTPClient scrapes the metrics; nil means a client with a 5s timeout.
	HTTPClient *http.Client
	// Live reads objects uncached where a stale read would lose an update
	// (a status or node label write refused because the cache was behind);
	// nil uses Client.
	Live client.Reader
	// FuseRecords is the namespace (the controller's own) where the FUSE
	// pod template rendered for each runtime is recorded
	// (datav1alpha1.FuseRecord), for the webhook to build other
	// namespaces' sidecars from; empty records none.
	FuseRecords string
	// Watches are further objects whose changes wake runtimes, e.g. the
	// profiles Thin runtimes start from.
	Watches []Watch
	// Guard judges the runtime and its Dataset with the platform's guard
	// rules before the engine renders them (trust/guardcheck), so that a
	// spec stored while the validating webhook was unreachable is refused
	// (InvalidSpec) rather than deployed; nil judges nothing.
	Guard Guard
	// HostPorts allocates the ports of the runtimes' components on the
	// host network (engines.HostPorter), one Allocator shared by every
	// runtime kind's reconciler: the nodes' ports are shared. Nil
	// allocates none: the engine's default ports are rendered.
	HostPorts *hostports.Allocator
	// Concurrency is how many runtimes reconcile at once (default 1).
	Concurrency int
	// Serves, when set, says which runtimes of the kind this reconciler
	// serves; the others it leaves alone (a reference dataset's
	// ThinRuntime is controller/reference's).
	Serves func(datav1alpha1.RuntimeObject) bool
	// Events records the runtime's Ready transitions and Helm actions; nil
	// records nothing.
	Events events.EventRecorder
	// Failures counts failed reconciles (Fluid's setup and health-check
	// error metrics); nil counts nothing.
	Failures FailureCounter
	// now is the clock; nil is time.Now.
	now func() time.Time

	nodes nodeStates
	// metadata remembers when each Dataset's usage was last counted.
	metadata metadataRecords
	// usage are the reads of usage pages under way, whose results wake
	// their runtimes through wake.
	usage usageReads
	wake  chan event.GenericEvent
	// writes spares a reconcile whose cache does not show this
	// reconciler's last write of the runtime yet a refused status patch and
	// a live read (an optimisation: the resourceVersion precondition of
	// writeStatus keeps it correct without): such a reconcile works from
	// the runtime the write returned, which the server holds at least.
	// Measured on tests/scale (500 Datasets, 2026-12-01, nodestate.go):
	// all bound in 52.6 s mean with it, 55.3 s without; the ranges overlap.
	writes ownwrites.Memory[datav1alpha1.RuntimeObject]
	chart  helm.ChartLoader
	// cleanupChart is charts/cachecleanup, the chart of a deletion's cache
	// cleanup (cleanup.go).
	cleanupChart helm.ChartLoader
	// releases spares unchanged runtimes a read of Helm's storage.
	releases helm.Memo
}

func (r *Reconciler) reader() client.Reader {
	if r.Live != nil {
		return r.Live
	}
	return r.Client
}

func (r *Reconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

const (
	// releaseRecheck is how long a release found in sync is trusted
	// without reading Helm's storage again (spec changes are seen at once).
	releaseRecheck = 10 * time.Minute
	waitDataset    = 10 * time.Second
	waitRelease    = 15 * time.Second
	waitWorkers    = 5 * time.Second
	waitInUse      = 10 * time.Second
	// waitHostPorts is when a runtime that found too few free host ports
	// asks again.
	waitHostPorts = 30 * time.Second
)

// scope is one reconcile: the runtime as read and everything the phases
// observe, from which the status is computed once at the end.
type scope struct {
	// rt is the runtime as read; its status is the status as read, which
	// the phases never change.
	rt datav1alpha1.RuntimeObject
	// eng is this reconcile's engine (resolved: engines.Resolver).
	eng engines.Engine
	// ds is the runtime's Dataset, once found.
	ds *datav1alpha1.Dataset
	// values are the release's chart values.
	values map[string]any
	// act is what Helm did to the release this reconcile.
	act helm.Action
	// obs are the observations the status reports.
	obs observations
	// report: the status is written at the end (not after an error, nor
	// while the release just changed is starting).
	report bool
	// setUp: the Dataset was bound to the runtime when the reconcile began.
	setUp bool
	// metadataDue is when the Dataset's next metadata Job is due, if known.
	metadataDue time.Time
	// counted is the metadata Job whose count this reconcile writes, to be
	// recorded and deleted once written (settleCount).
	counted *countedJob
}

// Reconcile implements reconcile.Reconciler: get the runtime, ensure the
// finalizer (or clean up), run the phases in order (each observes and acts,
// and may stop the reconcile), then write the status computed from what
// they observed, once.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	rt := r.Engine.NewObject()
	if err := r.Client.Get(ctx, req.NamespacedName, rt); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.Forget(req.NamespacedName)
			r.releaseHostPorts(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.Serves != nil && !r.Serves(rt) {
		return ctrl.Result{}, nil
	}
	if latest, behind := r.writes.Behind(req.NamespacedName, rt.GetResourceVersion()); behind {
		rt = latest.DeepCopyObject().(datav1alpha1.RuntimeObject)
	}
	s := &scope{rt: rt, eng: r.Engine, obs: observations{now: r.clock(), generation: rt.GetGeneration(), dataset: req.String()}}
	defer func() {
		if s.ds != nil && retErr == nil {
			retErr = r.writeDataset(ctx, s.ds, func(ds *datav1alpha1.Dataset) datav1alpha1.DatasetStatus {
				return datasetStatus(ds, s.rt, r.Engine.Type(), s.obs)
			})
		}
		if s.counted != nil && retErr == nil {
			retErr = r.settleCount(ctx, s)
		}
		if s.report && retErr == nil {
			retErr = r.writeStatus(ctx, s)
		}
		r.countFailure(s, retErr)
	}()
	if !rt.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, s)
	}
	if controllerutil.AddFinalizer(rt, Finalizer) {
		if err := r.update(ctx, rt); err != nil {
			return ctrl.Result{}, err
		}
	}
	for _, phase := range []func(context.Context, *scope) (ctrl.Result, bool, error){
		r.findDataset, r.resolveEngine, r.ensureRelease, r.observeWorkloads, r.ensureVolumes, r.bindDataset, r.wrapClaim, r.labelCacheNodes, r.syncMetadata, r.readCacheStates,
	} {
		res, next, err := phase(ctx, s)
		if err != nil || !next {
			return res, err
		}
	}
	if m := s.obs.mounts; m != nil && m.pending && m.waiting != "" && (r.CacheRefresh == 0 || r.CacheRefresh > waitWorkers) {
		// Changes of the workloads and the mount Job wake the runtime; this
		// bounds the wait for one the cache missed.
		return ctrl.Result{RequeueAfter: waitWorkers}, nil
	}
	return ctrl.Result{RequeueAfter: r.refreshAfter(s)}, nil
}

// refreshAfter is when a bound runtime is reconciled again: after the cache
// refresh interval, or sooner when its Dataset's metadata Job is due.
func (r *Reconciler) refreshAfter(s *scope) time.Duration {
	after := r.CacheRefresh
	if s.metadataDue.IsZero() {
		return after
	}
	if due := max(s.metadataDue.Sub(s.obs.now), time.Second); after == 0 || due < after {
		return due
	}
	return after
}

// reconcileDelete waits for the Pods using the Dataset (reporting InUse;
// the runtime's Dataset shares its name and namespace), then cleans the
// cache up (cleanup.go, reporting CacheCleaned), uninstalls the release,
// removes the PVC and PV, returns the Dataset to NotBound and releases the
// finalizer.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	// The metadata Job's pod uses the Dataset too: it goes first.
	if err := r.deleteMetadataJobs(ctx, s.rt); err != nil {
		return ctrl.Result{}, err
	}
	r.metadata.forget(client.ObjectKeyFromObject(s.rt))
	r.usage.forget(client.ObjectKeyFromObject(s.rt))
	users, err := r.datasetUsers(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	if len(users) > 0 {
		forced, err := r.forced(ctx, s.rt)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !forced {
			s.obs.inUse, s.report = users, true
			return ctrl.Result{RequeueAfter: waitInUse}, nil
		}
		r.event(s.rt, corev1.EventTypeWarning, "ForceDelete", "Delete", "%s", volume.ForcedNote(users))
	}
	return r.delete(ctx, s)
}

// forced says whether the runtime or its Dataset (deleted with it) asks
// for its deletion to go on although Pods use the Dataset.
func (r *Reconciler) forced(ctx context.Context, rt datav1alpha1.RuntimeObject) (bool, error) {
	if datav1alpha1.ForceDeletion(rt) {
		return true, nil
	}
	ds := &datav1alpha1.Dataset{}
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(rt), ds); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return !ds.DeletionTimestamp.IsZero() && datav1alpha1.ForceDeletion(ds), nil
}

// update writes the runtime (its metadata: the finalizer) and remembers
// the write.
func (r *Reconciler) update(ctx context.Context, rt datav1alpha1.RuntimeObject) error {
	replaced := rt.GetResourceVersion()
	if err := r.Client.Update(ctx, rt); err != nil {
		return err
	}
	r.writes.Wrote(client.ObjectKeyFromObject(rt), replaced, rt.DeepCopyObject().(datav1alpha1.RuntimeObject))
	return nil
}

func (r *Reconciler) event(rt client.Object, typ, reason, action, note string, args ...any) {
	if r.Events != nil {
		r.Events.Eventf(rt, nil, typ, reason, action, note, args...)
	}
}

// SetupWithManager registers the reconciler, woken by its runtime kind, the
// Dataset of the same name, the StatefulSets and Jobs of its release (by
// Helm's release annotations), its engine's pods, the Pods that mount its
// Dataset's PVC, the Jobs of its deletion's cache cleanup and its metadata
// Jobs (watches.go says which changes count), and the reads of its
// Dataset's usage pages that found something.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, name string) error {
	r.releases.TTL = releaseRecheck
	if r.Client == nil || r.Engine == nil || r.Helm == nil {
		return errors.New("runtime reconciler: Client, Engine and Helm are required")
	}
	served := predicate.NewPredicateFuncs(func(o client.Object) bool {
		rt, ok := o.(datav1alpha1.RuntimeObject)
		return ok && (r.Serves == nil || r.Serves(rt))
	})
	r.wake = make(chan event.GenericEvent, 1024)
	b := ctrl.NewControllerManagedBy(mgr).Named(name).
		For(r.Engine.NewObject(), builder.WithPredicates(served, runtimeChanged)).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(1, r.Concurrency), RateLimiter: backoff.RateLimiter()}).
		Watches(&datav1alpha1.Dataset{}, handler.EnqueueRequestsFromMapFunc(sameName), builder.WithPredicates(datasetChanged)).
		Watches(&appsv1.StatefulSet{}, handler.EnqueueRequestsFromMapFunc(releaseRequests), builder.WithPredicates(statefulSetChanged)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podRequests), builder.WithPredicates(podChanged)).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.jobRequests), builder.WithPredicates(jobChanged)).
		WatchesRawSource(source.Channel(r.wake, &handler.EnqueueRequestForObject{}))
	for _, w := range r.Watches {
		b = b.Watches(w.Object, handler.EnqueueRequestsFromMapFunc(w.Map))
	}
	if err := b.Complete(r); err != nil {
		return fmt.Errorf("building the %s controller: %w", name, err)
	}
	return nil
}

// Watch wakes the runtimes Map returns when an Object of its kind changes.
type Watch struct {
	Object client.Object
	Map    handler.MapFunc
}

// Guard refuses objects the platform's guard rules deny: an
// engines.Error (InvalidSpec) naming each denial, nil when none does.
type Guard interface {
	Refuse(ctx context.Context, objs ...client.Object) error
}

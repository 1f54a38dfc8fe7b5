package operation

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/internal/ownwrites"
	"github.com/sluice-data/sluice/engines"
)

// Renderer renders one operation into the Helm release that runs it.
type Renderer func(engines.OperationRequest) (engines.OperationRelease, error)

// Reconciler reconciles one data-operation kind.
type Reconciler struct {
	// Kind is the operation kind reconciled.
	Kind datav1alpha1.OperationKind
	// Client is the manager's client (cached reads).
	Client client.Client
	// Live reads from and writes to the API server: claims and Dataset
	// status, which compare resource versions.
	Live client.Client
	// Engines are the engines Sluice runs, by type (the runtime type in a
	// Dataset's status.runtimes). The Dataset's engine renders its
	// operations (Engine.Operation), refusing the kinds it does not run.
	Engines []engines.Engine
	// Render, when set, renders every operation of Kind whatever the
	// Dataset's engine (DataProcess: engines/workloads/process); it is given no
	// runtime.
	Render Renderer
	// Helm returns the Helm client for a namespace.
	Helm func(namespace string) (*helm.Client, error)
	// Conflicts says, for the operation kind, the kinds that block it.
	Conflicts claim.Table
	// Guard judges the operation with the platform's guard rules before
	// its release is rendered (trust/guardcheck): local:// locations, a
	// DataProcess pod's host privileges and volumes, tolerations; nil
	// judges nothing.
	Guard Guard
	// Grace is how long a claim of a missing operation is kept.
	Grace time.Duration
	// Concurrency is how many operations reconcile at once (default 1).
	Concurrency int
	// Events records the operations' transitions; nil records nothing.
	Events events.EventRecorder
	// Ends records the operations (for Cron: runs) that completed or
	// failed, with how long they ran (controller/metrics.Operations); nil
	// records nothing.
	Ends EndRecorder
	// now is the clock; nil is time.Now.
	now func() time.Time

	claimer *claim.Claimer
	charts  helm.ChartCache
	// writes remembers the versions this reconciler's writes replaced, and
	// when (ownwrites.go).
	writes ownwrites.Memory[time.Time]
}

func (r *Reconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// EndRecorder records an operation of kind that reached phase (Complete
// or Failed) after running took.
type EndRecorder interface {
	Ended(kind string, phase datav1alpha1.Phase, took time.Duration)
}

// How long a waiting operation waits before it looks again (its watches
// usually wake it first).
const (
	waitRetry   = 10 * time.Second
	waitRelease = 15 * time.Second
)

// scope is one reconcile: the operation as read and everything the phases
// observe, from which the status is computed once at the end.
type scope struct {
	// op is the operation as read; the phases never change its status.
	op datav1alpha1.OperationObject
	// release names the operation's Helm release, Job or CronJob.
	release string
	// job and cronJob are the operation's workload, once found.
	job     *batchv1.Job
	cronJob *batchv1.CronJob
	// ds is the target Dataset, once found.
	ds *datav1alpha1.Dataset
	// rt and eng are the Dataset's runtime and its engine (resolved).
	rt  client.Object
	eng engines.Engine
	// request is what the renderer is given; rendered is what it returned.
	request  engines.OperationRequest
	rendered *engines.OperationRelease
	// obs are the observations the status reports.
	obs observations
}

// started reports whether the operation's workload exists: then the
// phases that lead to installing it are over.
func (s *scope) started() bool { return s.job != nil || s.cronJob != nil }

func (s *scope) cron() bool { return s.op.GetPolicy() == datav1alpha1.Cron }

// Reconcile implements reconcile.Reconciler: get the operation, ensure the
// finalizer (or clean up), end a finished one (its claim, its TTL), run the
// phases in order, release the claim if the work ended, then write the
// status computed from what the phases observed, once.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	op, ok := datav1alpha1.NewOperation(string(r.Kind))
	if !ok {
		return ctrl.Result{}, fmt.Errorf("unknown operation kind %q", r.Kind)
	}
	if err := r.Client.Get(ctx, req.NamespacedName, op); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if at, behind := r.writes.Behind(req.NamespacedName, op.GetResourceVersion()); behind && r.clock().Sub(at) < trustOwnWrite {
		// The cache shows the version this reconciler's last write
		// replaced; the write's update event wakes the next reconcile.
		return ctrl.Result{RequeueAfter: time.Second}, nil
	}
	if !op.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, op)
	}
	if replaced := op.GetResourceVersion(); controllerutil.AddFinalizer(op, Finalizer) {
		if err := r.Client.Update(ctx, op); err != nil {
			return ctrl.Result{}, err
		}
		r.writes.Wrote(req.NamespacedName, replaced, r.clock())
	}
	if over(op) {
		return r.reconcileOver(ctx, op)
	}
	s := &scope{op: op, release: ReleaseName(r.Kind, op.GetName()),
		obs: observations{now: r.clock(), generation: op.GetGeneration(), created: op.GetCreationTimestamp().Time}}
	defer func() {
		if retErr != nil {
			return
		}
		skipped, err := r.writeStatus(ctx, s)
		if skipped && (result.RequeueAfter == 0 || result.RequeueAfter > time.Second) {
			result.RequeueAfter = time.Second
		}
		retErr = err
	}()
	res, err := r.runPhases(ctx, s)
	if err != nil {
		return res, err
	}
	if s.obs.finished() {
		if err := r.releaseClaim(ctx, s.op); err != nil {
			return ctrl.Result{}, err
		}
		s.obs.claim = isFalse(ReasonReleased, "released the Dataset when the operation finished")
		if s.cron() && s.obs.failure == nil {
			s.obs.claim = isFalse(ReasonIdle, "a Cron operation holds its Dataset only while a run executes; released after the last run")
		}
	}
	return res, nil
}

// phase is one step of a reconcile: it records what it observed in the
// scope and returns whether the next runs.
type phase func(context.Context, *scope) (ctrl.Result, bool, error)

// runPhases runs the phases in order until one stops.
func (r *Reconciler) runPhases(ctx context.Context, s *scope) (ctrl.Result, error) {
	phases := []phase{r.checkSpec, r.findWorkload, r.waitRunAfter, r.findDataset, r.resolveEngine, r.render, r.confirmNotOver, r.claimOnce, r.install, r.observeJob, r.scaleWorkers}
	if s.cron() {
		phases = []phase{r.checkSpec, r.findWorkload, r.waitRunAfter, r.findDataset, r.resolveEngine, r.render, r.confirmNotOver, r.install, r.observeRuns, r.scaleWorkers}
	}
	for _, p := range phases {
		res, next, err := p(ctx, s)
		if err != nil || !next {
			return res, err
		}
	}
	return ctrl.Result{}, nil
}

// over reports whether an operation reached its end: a Once operation
// that finished, or a Cron operation that failed for good (it will never
// run again, unlike one whose last run failed).
func over(op datav1alpha1.OperationObject) bool {
	s := op.GetOperationStatus()
	if op.GetPolicy() != datav1alpha1.Cron {
		return s.Finished()
	}
	return s.Phase == datav1alpha1.PhaseFailed && terminal(s)
}

// Guard refuses objects the platform's guard rules deny: an
// engines.Error (InvalidSpec) naming each denial, nil when none does.
type Guard interface {
	Refuse(ctx context.Context, objs ...client.Object) error
}

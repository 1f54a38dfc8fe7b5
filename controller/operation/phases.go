package operation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/internal/optional"
)

// The phases of a reconcile, in order. Each records what it observed in
// the scope and returns whether the next runs. Those before the workload
// exists (runAfter, Dataset, engine, render, claim, install) are skipped
// once it does: an operation's release is installed once and never
// changed.

// checkSpec fails an operation whose spec cannot run: no Dataset in its own
// namespace, policy OnEvent, Cron without a schedule, runAfter in another
// namespace. The validating webhook denies these; the check is for
// operations admitted without it.
func (r *Reconciler) checkSpec(_ context.Context, s *scope) (ctrl.Result, bool, error) {
	own := s.op.GetNamespace()
	ns, _, ok := s.op.GetTargetDataset()
	ref := s.op.GetRunAfter()
	switch {
	case !ok:
		s.obs.failure = isTrue(ReasonInvalidSpec, "the operation names no Dataset (spec.dataset)")
	case ns != own:
		s.obs.failure = isTrue(ReasonInvalidSpec, fmt.Sprintf("spec.dataset.namespace: the Dataset must be in the operation's namespace %q, not %q", own, ns))
	case s.op.GetPolicy() == datav1alpha1.OnEvent:
		s.obs.failure = isTrue(ReasonUnsupported, "spec.policy: OnEvent is not supported yet; use Once or Cron")
	case s.cron() && s.op.GetSchedule() == "":
		s.obs.failure = isTrue(ReasonInvalidSpec, "spec.schedule: required when spec.policy is Cron")
	case ref != nil && ref.Namespace != "" && ref.Namespace != own:
		s.obs.failure = isTrue(ReasonInvalidSpec, fmt.Sprintf("spec.runAfter.namespace: the operation to run after must be in namespace %q, not %q", own, ref.Namespace))
	case ref != nil && ref.AffinityStrategy.DependOn != nil && ref.AffinityStrategy.DependOn.Namespace != "" && ref.AffinityStrategy.DependOn.Namespace != own:
		s.obs.failure = isTrue(ReasonInvalidSpec, fmt.Sprintf("spec.runAfter.affinityStrategy.dependOn.namespace: the operation to follow must be in namespace %q, not %q",
			own, ref.AffinityStrategy.DependOn.Namespace))
	}
	return ctrl.Result{}, s.obs.failure == nil, nil
}

// findWorkload reads the operation's Job (CronJob for Cron) from the
// cache. One of that name that its release did not create is not the
// operation's: the operation fails rather than follow (or resume) it. A
// CronJob whose runs would start without the claim fails the operation,
// and its release is removed at once.
func (r *Reconciler) findWorkload(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	key := types.NamespacedName{Namespace: s.op.GetNamespace(), Name: s.release}
	var obj client.Object = &batchv1.Job{}
	kind := "Job"
	if s.cron() {
		obj, kind = &batchv1.CronJob{}, "CronJob"
	}
	if found, err := optional.Get(ctx, r.Client, key, obj); err != nil || !found {
		return ctrl.Result{}, err == nil, err
	}
	if obj.GetAnnotations()[helm.ReleaseNameAnnotation] != s.release {
		s.obs.failure = isTrue(ReasonNameTaken, fmt.Sprintf("a %s named %s exists that release %s did not create; delete it or rename the operation", kind, s.release, s.release))
		return ctrl.Result{}, false, nil
	}
	if !s.cron() {
		s.job = obj.(*batchv1.Job)
		return ctrl.Result{}, true, nil
	}
	cj := obj.(*batchv1.CronJob)
	s.cronJob = cj
	if sus := cj.Spec.JobTemplate.Spec.Suspend; sus == nil || !*sus {
		s.obs.failure = isTrue(ReasonRunsNotGated, fmt.Sprintf("CronJob %s starts its runs unsuspended, so a run could execute without the Dataset's claim "+
			"(a bug in the engine's chart: its jobTemplate must set suspend: true); the release was removed", cj.Name))
		return ctrl.Result{}, false, r.uninstallOrReport(ctx, s.op, s.release, "RemoveRelease")
	}
	return ctrl.Result{}, true, nil
}

// findDataset reads the target Dataset: missing, or not bound to a
// runtime yet, the operation waits (DatasetReady=False).
func (r *Reconciler) findDataset(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.started() {
		return ctrl.Result{}, true, nil
	}
	ns, name, _ := s.op.GetTargetDataset()
	key := types.NamespacedName{Namespace: ns, Name: name}
	ds := &datav1alpha1.Dataset{}
	found, err := optional.Get(ctx, r.Client, key, ds)
	if err == nil && !found {
		// Created together with its operation, the Dataset may not be in
		// the cache yet.
		found, err = optional.Get(ctx, r.Live, key, ds)
	}
	switch {
	case err != nil:
		return ctrl.Result{}, false, err
	case !found:
		s.obs.dataset = isFalse(ReasonDatasetNotFound, fmt.Sprintf("dataset %s not found; waiting", key))
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	case len(ds.Status.Runtimes) == 0:
		s.obs.dataset = isFalse(ReasonDatasetNotBound, fmt.Sprintf("dataset %s is not bound to a runtime yet; waiting", key))
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	}
	s.ds = ds
	return ctrl.Result{}, true, nil
}

// resolveEngine finds the engine of the Dataset's runtime and the runtime
// (DatasetReady). A runtime type no engine serves cannot run operations;
// a missing runtime is waited for. With Render set, neither is needed.
func (r *Reconciler) resolveEngine(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.started() {
		return ctrl.Result{}, true, nil
	}
	bound := s.ds.Status.Runtimes[0]
	key := types.NamespacedName{Namespace: s.ds.Namespace, Name: bound.Name}
	ready := isTrue(ReasonDatasetBound, fmt.Sprintf("dataset %s/%s is bound to %s runtime %s", s.ds.Namespace, s.ds.Name, bound.Type, bound.Name))
	if r.Render != nil {
		s.obs.dataset = ready
		return ctrl.Result{}, true, nil
	}
	eng := r.engine(bound.Type)
	if eng == nil {
		s.obs.failure = isTrue(ReasonUnsupported, fmt.Sprintf("no engine runs the %s runtime of dataset %s/%s", bound.Type, s.ds.Namespace, s.ds.Name))
		return ctrl.Result{}, false, nil
	}
	rt := eng.NewObject()
	found, err := optional.Get(ctx, r.Client, key, rt)
	switch {
	case err != nil:
		return ctrl.Result{}, false, err
	case !found:
		s.obs.dataset = isFalse(ReasonRuntimeNotFound, fmt.Sprintf("%s runtime %s of dataset %s/%s not found; waiting", bound.Type, key, s.ds.Namespace, s.ds.Name))
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	}
	if res, ok := eng.(engines.Resolver); ok {
		resolved, err := res.Resolve(ctx, r.Client, rt)
		if stop, err := s.engineError(err); stop {
			return ctrl.Result{}, false, err
		}
		eng = resolved
	}
	s.obs.dataset, s.eng, s.rt = ready, eng, rt
	return ctrl.Result{}, true, nil
}

// engine returns the registered engine of a runtime type, or nil.
func (r *Reconciler) engine(runtimeType string) engines.Engine {
	for _, e := range r.Engines {
		if e.Type() == runtimeType {
			return e
		}
	}
	return nil
}

// engineError records an engine's refusal (*engines.Error) as the
// operation's failure; stop reports whether the reconcile ends, with err
// for any other error.
func (s *scope) engineError(err error) (stop bool, _ error) {
	var engErr *engines.Error
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &engErr):
		s.obs.failure = isTrue(engErr.Reason, engErr.Error())
		return true, nil
	}
	return true, err
}

// render asks the engine (or Render) for the release that runs the
// operation, once the platform's guard rules (Guard) admit it. An engine that runs no operations, or not this kind, fails it
// at once (Unsupported, naming the engine).
func (r *Reconciler) render(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.started() {
		return ctrl.Result{}, true, nil
	}
	if r.Guard != nil {
		// The guards the webhook applies at admission, again: an
		// operation admitted while it was unreachable is not run.
		if stop, err := s.engineError(r.Guard.Refuse(ctx, s.op)); stop {
			return ctrl.Result{}, false, err
		}
	}
	render := r.Render
	if render == nil {
		render = s.eng.Operation
	}
	s.request.Op, s.request.Dataset, s.request.Runtime, s.request.Release = s.op, s.ds, s.rt, s.release
	rel, err := render(s.request)
	if stop, err := s.engineError(err); stop {
		return ctrl.Result{}, false, err
	}
	s.rendered = &rel
	return ctrl.Result{}, true, nil
}

// claimOnce claims the Dataset for a Once operation before its release is
// installed (DatasetClaimed); while an operation of a conflicting kind
// holds it, the operation waits, naming the holder.
func (r *Reconciler) claimOnce(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.started() {
		return ctrl.Result{}, true, nil
	}
	return r.claim(ctx, s)
}

// install installs the operation's release once (ReleaseInstalled). An
// install the API server refuses as invalid fails the operation; other
// failures are retried. A release of the operation's name that is not its
// own (owner.go) fails it (ReleaseConflict), and is left alone.
func (r *Reconciler) install(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	hc, err := r.Helm(s.op.GetNamespace())
	if err != nil {
		return ctrl.Result{}, false, err
	}
	owner, err := r.releaseOwner(s.op)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if s.started() {
		// A controller killed after Helm created the workload left the
		// record pending-install: the install is done, record it so.
		settled, err := hc.SettleInstall(s.release, owner)
		var foreign *helm.ForeignError
		switch {
		case errors.As(err, &foreign):
			s.releaseConflict(foreign.Why)
			return ctrl.Result{}, false, nil
		case err != nil || settled:
			return ctrl.Result{}, err == nil, err
		}
		return ctrl.Result{}, true, nil
	}
	chart, err := r.charts.Load(s.rendered.Chart)
	if err != nil {
		return ctrl.Result{}, false, fmt.Errorf("loading the chart of release %s: %w", s.release, err)
	}
	if !slices.Contains(owner.Charts, chart.Metadata.Name) {
		s.obs.failure = isTrue(ReasonUnsupported, fmt.Sprintf("the engine renders the operation with chart %q, which is not an operation chart (%s): "+
			"its release could not be told from another's", chart.Metadata.Name, strings.Join(owner.Charts, ", ")))
		return ctrl.Result{}, false, nil
	}
	state, act, err := hc.InstallOnce(ctx, s.release, helm.Desired{Chart: chart, Values: s.rendered.Values, Owner: owner.ID})
	switch {
	case err != nil && apierrors.IsInvalid(err):
		s.obs.failure = isTrue(ReasonInvalidSpec, err.Error())
		return ctrl.Result{}, false, r.uninstallOrReport(ctx, s.op, s.release, "RemoveRelease")
	case err != nil:
		s.obs.release = isFalse(ReasonReleaseFailed, err.Error())
		return ctrl.Result{RequeueAfter: waitRelease}, false, nil
	case act == helm.ActionWait:
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	case state == helm.Foreign:
		s.releaseConflict("another chart, or another object's")
		return ctrl.Result{}, false, nil
	}
	ctrl.LoggerFrom(ctx).Info("operation release", "release", s.release, "state", state, "action", act)
	s.obs.release = isTrue(ReasonInstalled, "release "+s.release+" is installed")
	if act == helm.ActionNone {
		// Installed before, yet the cache has no workload: it was deleted,
		// or the cache has not caught up with the install.
		if missing, err := r.workloadMissing(ctx, s); err != nil || missing {
			return ctrl.Result{}, false, err
		}
	}
	return ctrl.Result{}, true, nil
}

// releaseConflict fails the operation for a release of its name that is
// not its own (why says whose it is not).
func (s *scope) releaseConflict(why string) {
	msg := conflict(s.op, s.release, why)
	s.obs.release = isFalse(ReasonReleaseConflict, msg)
	s.obs.failure = isTrue(ReasonReleaseConflict, msg)
}

// workloadMissing reads the workload from the API server; when it is gone
// the operation fails (WorkloadMissing).
func (r *Reconciler) workloadMissing(ctx context.Context, s *scope) (bool, error) {
	var obj client.Object = &batchv1.Job{}
	kind := "Job"
	if s.cron() {
		obj, kind = &batchv1.CronJob{}, "CronJob"
	}
	found, err := optional.Get(ctx, r.Live, types.NamespacedName{Namespace: s.op.GetNamespace(), Name: s.release}, obj)
	if err != nil || found {
		return false, err
	}
	s.obs.failure = isTrue(ReasonWorkloadMissing, fmt.Sprintf("the %s %s of release %s was deleted", kind, s.release, s.release))
	return true, nil
}

// claim claims the operation's Dataset (DatasetClaimed). Held by a
// conflicting operation, or gone, the operation waits; a DataMigrate marks
// the Dataset DataMigrating once it holds it.
func (r *Reconciler) claim(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	ns, name, _ := s.op.GetTargetDataset()
	key := types.NamespacedName{Namespace: ns, Name: name}
	conflicts, err := r.Conflicts.For(ctx, string(r.Kind))
	if err != nil {
		s.obs.claim = isFalse(ReasonConflictTableInvalid, err.Error()+"; waiting")
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	}
	err = r.claimer.Claim(ctx, claim.Request{Dataset: key, Kind: string(r.Kind), Name: s.op.GetName(), Conflicts: conflicts})
	var held *claim.HeldError
	var missing *claim.NotFoundError
	switch {
	case errors.As(err, &held):
		s.obs.claim = isFalse(ReasonDatasetHeld, held.Error()+"; waiting")
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	case errors.As(err, &missing):
		s.obs.dataset = isFalse(ReasonDatasetNotFound, missing.Error()+"; waiting")
		return ctrl.Result{RequeueAfter: waitRetry}, false, nil
	case err != nil:
		return ctrl.Result{}, false, err
	}
	s.obs.claim = isTrue(ReasonClaimed, fmt.Sprintf("holds dataset %s", key))
	if r.Kind == datav1alpha1.DataMigrateKind {
		if err := r.setMigrating(ctx, key); err != nil {
			return ctrl.Result{}, false, err
		}
	}
	return ctrl.Result{}, true, nil
}

// confirmNotOver reads the operation from the API server before the
// reconcile claims or installs for it, and stops if it is over: a
// reconcile that read it from a cache behind this controller's last write
// must not claim for an operation that ended, nor install a release that
// was just removed (the status it then computes is not written either:
// writeStatus finds the phase moved on).
func (r *Reconciler) confirmNotOver(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if s.started() {
		return ctrl.Result{}, true, nil
	}
	live, err := r.readLive(ctx, s.op)
	if err != nil || live == nil {
		return ctrl.Result{}, false, err
	}
	return ctrl.Result{}, !over(live), nil
}

// readLive reads the operation from the API server; nil when it is gone.
func (r *Reconciler) readLive(ctx context.Context, op datav1alpha1.OperationObject) (datav1alpha1.OperationObject, error) {
	live, _ := datav1alpha1.NewOperation(string(r.Kind))
	found, err := optional.Get(ctx, r.Live, client.ObjectKeyFromObject(op), live)
	if err != nil || !found {
		return nil, err
	}
	return live, nil
}

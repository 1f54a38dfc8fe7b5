package cacheruntime

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/engines"
)

// The phases of a reconcile, in order. Each records what it observed in
// the scope and returns whether the next runs; the status is computed from
// the observations once they stop (runtimeStatus) and written then.

// findDataset reads the runtime's Dataset: missing, or bound to another
// runtime, the runtime waits (DatasetAvailable=False).
func (r *Reconciler) findDataset(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	ds := &datav1alpha1.Dataset{}
	if err := r.getDataset(ctx, client.ObjectKeyFromObject(s.rt), ds); err != nil {
		if apierrors.IsNotFound(err) {
			s.obs.datasetFound, s.report = &datasetFound{}, true
			return ctrl.Result{RequeueAfter: waitDataset}, false, nil
		}
		return ctrl.Result{}, false, err
	}
	s.ds = ds
	s.obs.datasetFound = &datasetFound{exists: true, boundElsewhere: boundElsewhere(ds, s.rt, r.Engine.Type())}
	s.report = true
	s.setUp = len(ds.Status.Runtimes) > 0 && s.obs.datasetFound.boundElsewhere == ""
	return ctrl.Result{}, s.obs.datasetFound.boundElsewhere == "", nil
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

// boundElsewhere names the runtime the Dataset is bound to, if not this one.
func boundElsewhere(ds *datav1alpha1.Dataset, rt client.Object, runtimeType string) string {
	for _, r := range ds.Status.Runtimes {
		if r.Name != rt.GetName() || r.Type != runtimeType {
			return r.Type + " runtime " + r.Name
		}
	}
	return ""
}

// guardRetry is when a runtime the guards refused is judged again, with
// the platform's policy data as it is then.
const guardRetry = 10 * time.Second

// resolveEngine settles this reconcile's engine, the runtime's host ports
// (assignHostPorts) and the release's values. An engines.Resolver reads
// the objects the runtime depends on here, once; the rest of the reconcile
// asks the engine it returned. An engine error
// (engines.Error) stops the reconcile with its reason
// (EngineInstalled=False).
func (r *Reconciler) resolveEngine(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if _, isRef, _ := datav1alpha1.ReferenceOf(s.ds); isRef {
		s.obs.engine = &engineVerdict{reason: engines.ReasonInvalidSpec, message: fmt.Sprintf(
			"Dataset %s is a reference dataset (it has a %s mount): only a ThinRuntime without spec.profileName serves it, from the referenced Dataset's cache",
			s.obs.dataset, datav1alpha1.ReferenceScheme)}
		return ctrl.Result{}, false, nil
	}
	if r.Guard != nil {
		err := r.Guard.Refuse(ctx, s.ds, s.rt)
		var engErr *engines.Error
		if errors.As(err, &engErr) {
			// The platform may change its policy data: judge again later.
			s.obs.engine = &engineVerdict{reason: engErr.Reason, message: engErr.Error()}
			return ctrl.Result{RequeueAfter: guardRetry}, false, nil
		} else if err != nil {
			return ctrl.Result{}, false, err
		}
	}
	eng, err := r.Engine, error(nil)
	if res, ok := eng.(engines.Resolver); ok {
		eng, err = res.Resolve(ctx, r.Client, s.rt)
	}
	if err == nil {
		err = refusedMountEdit(eng, s.ds, s.rt, r.Engine.Type())
	}
	if err == nil {
		err = r.assignHostPorts(ctx, s, eng)
	}
	var values map[string]any
	if err == nil {
		values, err = eng.Values(s.ds, s.rt)
	}
	var engErr *engines.Error
	if exhausted(err) {
		// Ports come free as runtimes on the host network go.
		s.obs.engine = &engineVerdict{reason: ReasonHostPortsExhausted, message: err.Error()}
		return ctrl.Result{RequeueAfter: waitHostPorts}, false, nil
	}
	if errors.As(err, &engErr) {
		s.obs.engine = &engineVerdict{reason: engErr.Reason, message: engErr.Error()}
		return ctrl.Result{}, false, nil
	} else if err != nil {
		return ctrl.Result{}, false, err
	}
	s.eng, s.values = eng, values
	return ctrl.Result{}, true, nil
}

// ensureRelease installs or upgrades the engine's release to the values
// (EngineInstalled). A release found in sync is remembered (r.releases),
// sparing the next reconciles a read of Helm's storage.
func (r *Reconciler) ensureRelease(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	chart, err := r.chart.Load(r.Engine.Chart())
	if err != nil {
		return ctrl.Result{}, false, err
	}
	hc, err := r.Helm(s.rt.GetNamespace())
	if err != nil {
		return ctrl.Result{}, false, err
	}
	desired, memoKey := helm.Desired{Chart: chart, Values: s.values}, client.ObjectKeyFromObject(s.rt).String()
	digest, digestErr := desired.Digest() // without one, Helm's storage is always read
	state, act := helm.InSync, helm.ActionNone
	if digestErr != nil || !r.releases.InSync(memoKey, digest) {
		// The FUSE record first: it must not lag the DaemonSet Helm deploys.
		if err := r.recordFuse(ctx, s, chart, digest); err != nil {
			return ctrl.Result{}, false, err
		}
		state, act, err = hc.Ensure(ctx, s.rt.GetName(), desired)
		// In sync as found, or just installed or upgraded to desired.
		if err == nil && digestErr == nil && (state == helm.InSync || act == helm.ActionInstall || act == helm.ActionUpgrade) {
			r.releases.Record(memoKey, digest)
		}
	}
	if act != helm.ActionNone {
		ctrl.LoggerFrom(ctx).Info("engine release", "state", state, "action", act)
		switch act {
		case helm.ActionWait:
		case helm.ActionRollback:
			r.event(s.rt, corev1.EventTypeWarning, "Release", string(act), "engine release %s: rolled back to its last good revision (was %s)", s.rt.GetName(), state)
		default:
			r.event(s.rt, corev1.EventTypeNormal, "Release", string(act), "engine release %s: %s (was %s)", s.rt.GetName(), act, state)
		}
	}
	s.act = act
	var retry *helm.RetryAfter
	switch {
	case errors.As(err, &retry):
		// The spec failed to deploy: say why, and come back when it is
		// tried again.
		s.obs.engine = &engineVerdict{reason: ReasonReleaseFailed, message: err.Error()}
		return ctrl.Result{RequeueAfter: max(time.Until(retry.When), time.Second)}, false, nil
	case err != nil:
		s.obs.engine = &engineVerdict{reason: ReasonReleaseFailed, message: err.Error()}
		return ctrl.Result{RequeueAfter: waitRelease}, false, nil
	case state == helm.Foreign:
		s.obs.engine = &engineVerdict{reason: ReasonReleaseConflict, message: fmt.Sprintf(
			"a Helm release %s of another chart exists in namespace %s; Sluice neither upgrades nor uninstalls it: rename the runtime or remove that release", s.rt.GetName(), s.rt.GetNamespace())}
		return ctrl.Result{RequeueAfter: waitRelease}, false, nil
	}
	s.obs.engine = &engineVerdict{}
	return ctrl.Result{}, true, nil
}

// observeWorkloads reads the release's masters, workers and FUSE
// (MastersReady, WorkersReady); until every desired master and worker is
// ready the runtime waits.
func (r *Reconciler) observeWorkloads(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	c, err := r.observeComponents(ctx, s.eng, s.rt)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	s.obs.components = c
	if err := r.observeMounts(ctx, s, c); err != nil {
		return ctrl.Result{}, false, err
	}
	if c.waiting() == "" {
		return ctrl.Result{}, true, nil
	}
	if s.act != helm.ActionNone && s.act != helm.ActionWait {
		// The release was just changed: the cache shows its workloads as
		// they were before, if at all. The reconcile their changes wake
		// (or the requeue) writes the status, often straight to Ready when
		// the controller is busy; the release's event says what happened.
		s.report = false
	}
	return ctrl.Result{RequeueAfter: waitWorkers}, false, nil
}

// ensureVolumes creates the Dataset's PVC, then its PV bound in advance to
// that PVC by name and UID, so that the PV controller only has to record
// the binding (a PV that names its claim without UID is rewritten first).
// The PV records the engine's FUSE volume, and requires the nodes of the
// FUSE node selector (syncPVNodeAffinity keeps an existing PV to it). A
// PV of the earlier name is replaced by one of volume.Name once no Pod
// uses the Dataset (renameVolumes), and serves until then. A
// PVC or PV of that name that Sluice did not create for the Dataset
// (volume.Owns) is never adopted: the runtime reports VolumeConflict and
// waits. One being deleted is waited for (VolumeDeleting), then created
// anew.
func (r *Reconciler) ensureVolumes(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	pvc, err := volume.PVC(s.ds)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if err := volume.CreateIfMissing(ctx, r.Client, pvc); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("creating PVC %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	if !volume.Owns(s.ds, pvc) {
		return r.volumeConflict(s, fmt.Sprintf("PVC %s/%s exists and was not created by Sluice for Dataset %s; the Dataset is bound only to a claim Sluice creates: rename or delete that PVC", pvc.Namespace, pvc.Name, s.obs.dataset))
	}
	if !pvc.DeletionTimestamp.IsZero() {
		return r.volumeGoing(s, pvc)
	}
	fuse := s.eng.Volume(s.rt)
	pv, err := volume.PV(s.ds, volume.Spec{
		FluidPath: fuse.Path, MountType: fuse.MountType, ClaimUID: pvc.UID,
		RuntimeName: s.rt.GetName(), RuntimeNamespace: s.rt.GetNamespace(), CleanPolicy: string(fuse.CleanPolicy),
		FuseNodeSelector: s.rt.GetFuseNodeSelector(), Name: volume.ClaimedName(s.ds, pvc),
		SkipCheckMountReadyTarget: s.rt.GetAnnotations()[datav1alpha1.AnnotationSkipCheckMountReadyTarget],
	})
	if err != nil {
		return ctrl.Result{}, false, err
	}
	want := pv.Spec.NodeAffinity
	if err := volume.CreateIfMissing(ctx, r.Client, pv); err != nil {
		return ctrl.Result{}, false, fmt.Errorf("creating PV %s: %w", pv.Name, err)
	}
	if !volume.Owns(s.ds, pv) {
		return r.volumeConflict(s, fmt.Sprintf("PV %s exists and was not created by Sluice for Dataset %s (another Dataset's, or not Sluice's): delete it, or rename the Dataset", pv.Name, s.obs.dataset))
	}
	if !pv.DeletionTimestamp.IsZero() {
		return r.volumeGoing(s, pv)
	}
	if pv.Name != volume.Name(s.ds) {
		if res, done, err := r.renameVolumes(ctx, s, pvc, pv); err != nil || !done {
			return res, done, err
		}
	}
	return r.syncPVNodeAffinity(ctx, s, pvc, pv, want)
}

// volumeConflict stops the reconcile, reporting VolumeBound=False.
func (r *Reconciler) volumeConflict(s *scope, message string) (ctrl.Result, bool, error) {
	s.obs.volumeConflict, s.report = message, true
	return ctrl.Result{RequeueAfter: waitDataset}, false, nil
}

// bindDataset binds the Dataset to the runtime (VolumeBound): its status,
// computed at the end of the reconcile (datasetStatus), lists the runtime,
// and the runtime records the mounts it serves. The Dataset is Bound then,
// unless a change of its mounts is being applied.
func (r *Reconciler) bindDataset(_ context.Context, s *scope) (ctrl.Result, bool, error) {
	if m := s.obs.mounts; m != nil && !boundTo(s.ds, s.rt, r.Engine.Type()) {
		m.record = true
	}
	s.obs.bound = true
	return ctrl.Result{}, true, nil
}

// labelCacheNodes keeps the Dataset's cache labels on the nodes running
// its ready workers (the runtime's cacheAffinity).
func (r *Reconciler) labelCacheNodes(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	aff, err := r.labelNodes(ctx, s.ds, s.rt)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	s.obs.cacheAffinity = aff
	return ctrl.Result{}, true, nil
}

// readCacheStates reads the cache figures from the engine's metrics (the
// runtime's and the Dataset's cacheStates), after syncMetadata: the cached
// percentage is of the Dataset's ufsTotal as this reconcile writes it.
func (r *Reconciler) readCacheStates(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	ready := s.rt.GetRuntimeStatus().WorkerNumberReady
	if c := s.obs.components; c != nil && c.workers != nil {
		ready = c.workers.ready
	}
	ufsTotal, _ := usageStatus(&s.ds.Status, s.obs)
	states, err := r.observeCache(ctx, s.eng, s.ds, s.rt, ready, ufsTotal)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	s.obs.cacheStates = states
	return ctrl.Result{}, true, nil
}

// deleteOwned deletes obj if it is the volume Sluice created for ds
// (volume.DeleteOwned, reading through the API server what the cache
// does not hold).
func (r *Reconciler) deleteOwned(ctx context.Context, ds *datav1alpha1.Dataset, obj client.Object) error {
	return volume.DeleteOwned(ctx, r.Client, r.Live, ds, obj)
}

// delete cleans the runtime's cache up (cleanCache), uninstalls the
// release, removes the PVC and PV, returns the Dataset to NotBound and
// releases the finalizer; a cleanup in progress has it come back.
func (r *Reconciler) delete(ctx context.Context, s *scope) (ctrl.Result, error) {
	rt := s.rt
	if !controllerutil.ContainsFinalizer(rt, Finalizer) {
		return ctrl.Result{}, nil
	}
	ds := &datav1alpha1.Dataset{}
	err := r.Client.Get(ctx, client.ObjectKeyFromObject(rt), ds)
	key, found := datav1alpha1.DatasetKey{Namespace: rt.GetNamespace(), Name: rt.GetName()}, (*datav1alpha1.Dataset)(nil)
	switch {
	case err == nil:
		key, found = datav1alpha1.KeyOf(ds), ds
	case !apierrors.IsNotFound(err):
		return ctrl.Result{}, err
	}
	if found != nil && boundElsewhere(found, rt, r.Engine.Type()) != "" {
		// The Dataset is another runtime's (of another kind, with this
		// name): the release, volumes and node labels of that name are
		// that runtime's, and this one never had any.
		controllerutil.RemoveFinalizer(rt, Finalizer)
		return ctrl.Result{}, r.update(ctx, rt)
	}
	hc, err := r.Helm(rt.GetNamespace())
	if err != nil {
		return ctrl.Result{}, err
	}
	if res, done, err := r.cleanCache(ctx, s, hc); err != nil || !done {
		return res, err
	}
	r.releases.Forget(client.ObjectKeyFromObject(rt).String())
	chart, err := r.chart.Load(r.Engine.Chart())
	if err != nil {
		return ctrl.Result{}, err
	}
	if _, err := hc.UninstallChart(rt.GetName(), chart.Metadata.Name); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.deleteFuseRecord(ctx, rt.GetUID()); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.unlabelNodes(ctx, key, r.cacheLabels(key, found, rt), nil); err != nil {
		return ctrl.Result{}, err
	}
	// The PVC and PV go even when the Dataset is gone already (deleted with
	// its runtime, as `kubectl delete -f` of both does); they are named
	// after it.
	if err := volume.DeleteDatasetVolumes(ctx, r.Client, r.Live, rt.GetNamespace(), rt.GetName()); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.unwrapGone(ctx, rt); err != nil {
		return ctrl.Result{}, err
	}
	if found != nil {
		if err := r.writeDataset(ctx, found, func(ds *datav1alpha1.Dataset) datav1alpha1.DatasetStatus {
			return unboundDatasetStatus(ds, rt, r.Engine.Type())
		}); err != nil {
			return ctrl.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(rt, Finalizer)
	if err := r.update(ctx, rt); err != nil {
		return ctrl.Result{}, err
	}
	r.releaseHostPorts(client.ObjectKeyFromObject(rt))
	return ctrl.Result{}, nil
}

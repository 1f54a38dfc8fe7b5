package reference

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// The phases of a reconcile, in order. Each records what it observed and
// returns whether the next runs.

// findDataset reads the runtime's Dataset, which must be a reference
// dataset bound to no other runtime (DatasetAvailable).
func (r *Reconciler) findDataset(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	key := client.ObjectKeyFromObject(s.rt)
	ds := &datav1alpha1.Dataset{}
	found, err := r.get(ctx, key, ds)
	switch {
	case err != nil:
		return ctrl.Result{}, false, err
	case !found:
		s.obs.set(ConditionDatasetAvailable, no(ReasonDatasetNotFound, "waiting for Dataset %s", key))
		return ctrl.Result{RequeueAfter: waitDataset}, false, nil
	}
	ref, isRef, err := datav1alpha1.ReferenceOf(ds)
	switch {
	case !isRef:
		s.obs.set(ConditionDatasetAvailable, no(ReasonInvalidSpec,
			"Dataset %s has no %s mount: a ThinRuntime without spec.profileName serves only a reference dataset (its one mount %s<namespace>/<name>); set spec.profileName to run the FUSE program of a ThinRuntimeProfile",
			key, datav1alpha1.ReferenceScheme, datav1alpha1.ReferenceScheme))
		return ctrl.Result{}, false, nil
	case err != nil:
		s.obs.set(ConditionDatasetAvailable, no(ReasonInvalidSpec, "Dataset %s: %v", key, err))
		return ctrl.Result{}, false, nil
	}
	for _, b := range ds.Status.Runtimes {
		if b.Name != s.rt.Name || b.Type != runtimeType {
			s.obs.set(ConditionDatasetAvailable, no(ReasonDatasetBoundElsewhere, "Dataset %s is bound to %s runtime %s", key, b.Type, b.Name))
			return ctrl.Result{RequeueAfter: waitDataset}, false, nil
		}
	}
	s.ds, s.ref, s.obs.mounts = ds, ref, ds.Spec.Mounts
	s.obs.set(ConditionDatasetAvailable, yes(ReasonDatasetFound, "Dataset %s references %s", key, mountOf(ref)))
	return ctrl.Result{}, true, nil
}

// findTarget reads the referenced Dataset and its runtime
// (ReferenceAvailable). Until the Dataset exists, is Bound and is not being
// deleted (once the reference is recorded, it is served while that
// deletion waits for it), the reference dataset is NotBound, saying why.
func (r *Reconciler) findTarget(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	key := types.NamespacedName{Namespace: s.ref.Namespace, Name: s.ref.Name}
	target := &datav1alpha1.Dataset{}
	found, err := r.get(ctx, key, target)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	var v *verdict
	switch {
	case !found:
		v = no(ReasonReferencedDatasetNotFound, "Dataset %s, which this reference dataset mounts (%s), does not exist", key, mountOf(s.ref))
	case isReference(target):
		v = no(ReasonInvalidSpec, "Dataset %s is a reference dataset itself (it mounts %s); a reference dataset mounts a Dataset with a runtime of its own", key, target.Spec.Mounts[0].MountPoint)
	case !target.DeletionTimestamp.IsZero() && !slices.Contains(target.Status.DatasetRef, refName(s.ds)):
		v = no(ReasonReferencedDatasetDeleting, "Dataset %s is being deleted", key)
	case !servesData(target.Status.Phase) || len(target.Status.Runtimes) == 0:
		v = no(ReasonReferencedDatasetNotBound, "Dataset %s is not Bound (phase %s)", key, phaseName(target.Status.Phase))
	}
	if v == nil {
		tr := target.Status.Runtimes[0]
		newObj, ok := r.RuntimeKinds[tr.Type]
		if !ok {
			v = no(ReasonReferencedDatasetNotBound, "Dataset %s is bound to %s runtime %s, a type with no engine here", key, tr.Type, tr.Name)
		} else {
			rt := newObj()
			ns := tr.Namespace
			if ns == "" {
				ns = target.Namespace
			}
			if found, err := r.get(ctx, types.NamespacedName{Namespace: ns, Name: tr.Name}, rt); err != nil {
				return ctrl.Result{}, false, err
			} else if !found {
				v = no(ReasonReferencedDatasetNotBound, "the %s runtime %s of Dataset %s does not exist", tr.Type, tr.Name, key)
			} else {
				s.targetRuntime = rt
			}
		}
	}
	if v != nil {
		s.obs.set(ConditionReferenceAvailable, v)
		return ctrl.Result{RequeueAfter: waitDataset}, false, r.markNotBound(ctx, s.ds, *v)
	}
	s.target = target
	s.obs.set(ConditionReferenceAvailable, yes(ReasonReferenceBound, "Dataset %s is Bound to %s runtime %s",
		key, target.Status.Runtimes[0].Type, target.Status.Runtimes[0].Name))
	return ctrl.Result{}, true, nil
}

// recordReference lists the reference dataset in the referenced Dataset's
// status.datasetRef before anything can use it, so that the referenced
// Dataset's deletion waits for it; a Dataset whose deletion began in
// between is not referenced (ReferencedDatasetDeleting).
func (r *Reconciler) recordReference(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	name := refName(s.ds)
	deleting := false
	_, err := r.writeDatasetStatus(ctx, s.target, func(t *datav1alpha1.Dataset) bool {
		deleting = !t.DeletionTimestamp.IsZero()
		if slices.Contains(t.Status.DatasetRef, name) || deleting {
			return false
		}
		t.Status.DatasetRef = append(t.Status.DatasetRef, name)
		return true
	})
	switch {
	case apierrors.IsNotFound(err):
		s.obs.set(ConditionReferenceAvailable, no(ReasonReferencedDatasetNotFound, "Dataset %s does not exist", s.ref.Key()))
		return ctrl.Result{RequeueAfter: waitDataset}, false, nil
	case err != nil:
		return ctrl.Result{}, false, fmt.Errorf("recording the reference in Dataset %s: %w", s.ref.Key(), err)
	case deleting && !slices.Contains(s.target.Status.DatasetRef, name):
		v := no(ReasonReferencedDatasetDeleting, "Dataset %s is being deleted", s.ref.Key())
		s.obs.set(ConditionReferenceAvailable, v)
		return ctrl.Result{RequeueAfter: waitDataset}, false, r.markNotBound(ctx, s.ds, *v)
	}
	return ctrl.Result{}, true, nil
}

// bindDataset marks the reference dataset Bound, with the referenced
// Dataset's figures (VolumeBound), and has the runtime's status copy the
// referenced runtime's.
func (r *Reconciler) bindDataset(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	if err := r.writeDataset(ctx, s.ds, func(ds *datav1alpha1.Dataset) datav1alpha1.DatasetStatus {
		return boundDatasetStatus(ds, s.rt, s.target)
	}); err != nil {
		return ctrl.Result{}, false, err
	}
	s.obs.target = s.targetRuntime.GetRuntimeStatus()
	s.obs.set(ConditionVolumeBound, yes(ReasonBound, "Dataset %s/%s is bound to the cache of Dataset %s", s.ds.Namespace, s.ds.Name, s.ref.Key()))
	return ctrl.Result{}, true, nil
}

// markNotBound gives the reference dataset phase NotBound and Ready=False
// with v's reason and message, when it says otherwise.
func (r *Reconciler) markNotBound(ctx context.Context, ds *datav1alpha1.Dataset, v verdict) error {
	return r.writeDataset(ctx, ds, func(d *datav1alpha1.Dataset) datav1alpha1.DatasetStatus { return notBoundDatasetStatus(d, v) })
}

// get reads an object from the cache or, when the cache does not have it,
// from the API server (a reference dataset and its runtime are created
// together); found is false when neither has it.
func (r *Reconciler) get(ctx context.Context, key types.NamespacedName, obj client.Object) (bool, error) {
	err := r.Client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) && r.Live != nil {
		err = r.Live.Get(ctx, key, obj)
	}
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func isReference(ds *datav1alpha1.Dataset) bool {
	_, ok, _ := datav1alpha1.ReferenceOf(ds)
	return ok
}

// servesData says whether a Dataset in phase p is served by its runtime.
func servesData(p datav1alpha1.DatasetPhase) bool {
	return p == datav1alpha1.BoundDatasetPhase || p == datav1alpha1.DataMigratingDatasetPhase
}

func phaseName(p datav1alpha1.DatasetPhase) string {
	if p == "" {
		return "None"
	}
	return string(p)
}

func refName(ds *datav1alpha1.Dataset) string {
	return datav1alpha1.DatasetRefName(ds.Namespace, ds.Name)
}

func mountOf(r datav1alpha1.DatasetReference) string {
	m := datav1alpha1.ReferenceScheme + r.Key()
	if r.SubPath != "" {
		m += "/" + r.SubPath
	}
	return m
}

package cacheruntime

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// observeComponents copies the counts of the master and worker
// StatefulSets and of the FUSE DaemonSet into the runtime's status. It
// returns the reason the cache is not ready yet (masters first), or "" when
// every desired master and worker is ready. FUSE pods run only where Pods
// use the Dataset, so they never hold binding back.
func (r *Reconciler) observeComponents(ctx context.Context, eng engines.Engine, rt client.Object) (string, error) {
	comps := eng.Components(rt)
	s, waiting := statusOf(rt), ""
	if comps.Master {
		sts, err := r.statefulSet(ctx, rt, "-master")
		if err != nil {
			return "", err
		}
		c := observeStatefulSet(sts)
		s.DesiredMasterNumberScheduled, s.CurrentMasterNumberScheduled, s.MasterNumberReady, s.MasterPhase = c.desired, c.current, c.ready, c.phase
		if !c.done {
			waiting = ReasonMastersNotReady
		}
	}
	if comps.Worker {
		sts, err := r.statefulSet(ctx, rt, "-worker")
		if err != nil {
			return "", err
		}
		c := observeStatefulSet(sts)
		s.DesiredWorkerNumberScheduled, s.CurrentWorkerNumberScheduled, s.WorkerNumberReady, s.WorkerPhase = c.desired, c.current, c.ready, c.phase
		s.WorkerNumberAvailable, s.WorkerNumberUnavailable = c.available, max(0, c.desired-c.available)
		if sts != nil {
			if sel, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector); err == nil {
				s.Selector = sel.String()
			}
		}
		if !c.done && waiting == "" {
			waiting = ReasonWorkersNotReady
		}
	}
	fuse := &appsv1.DaemonSet{}
	switch err := r.Client.Get(ctx, types.NamespacedName{Namespace: rt.GetNamespace(), Name: rt.GetName() + datav1alpha1.FuseDaemonSetSuffix}, fuse); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return "", err
	default:
		f := fuse.Status
		s.DesiredFuseNumberScheduled, s.CurrentFuseNumberScheduled, s.FuseNumberReady = f.DesiredNumberScheduled, f.CurrentNumberScheduled, f.NumberReady
		s.FuseNumberAvailable, s.FuseNumberUnavailable = f.NumberAvailable, f.NumberUnavailable
		s.FusePhase = workerPhase(f.NumberReady, f.DesiredNumberScheduled)
	}
	return waiting, nil
}

// statefulSet returns the runtime's StatefulSet with the suffix, or nil.
func (r *Reconciler) statefulSet(ctx context.Context, rt client.Object, suffix string) (*appsv1.StatefulSet, error) {
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, types.NamespacedName{Namespace: rt.GetNamespace(), Name: rt.GetName() + suffix}, sts); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return sts, nil
}

// counts are one StatefulSet's observed figures.
type counts struct {
	desired, current, ready, available int32
	phase                              datav1alpha1.RuntimePhase
	// done: every desired replica is ready in the current generation.
	done bool
}

// observeStatefulSet reads a StatefulSet's counts; nil (not created yet)
// is not ready.
func observeStatefulSet(sts *appsv1.StatefulSet) counts {
	if sts == nil {
		return counts{phase: datav1alpha1.RuntimePhaseNotReady}
	}
	desired := int32(1)
	if sts.Spec.Replicas != nil {
		desired = *sts.Spec.Replicas
	}
	st := sts.Status
	return counts{
		desired: desired, current: st.Replicas, ready: st.ReadyReplicas, available: st.AvailableReplicas,
		phase: workerPhase(st.ReadyReplicas, desired),
		done:  st.ReadyReplicas >= desired && st.ObservedGeneration >= sts.Generation,
	}
}

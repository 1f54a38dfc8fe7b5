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

// observeComponents reads the master and worker StatefulSets eng (this
// reconcile's engine) runs for rt, and the FUSE DaemonSet, and asks eng
// where rt's REST gateway listens.
func (r *Reconciler) observeComponents(ctx context.Context, eng engines.Engine, rt client.Object) (*componentCounts, error) {
	comps := eng.Components(rt)
	out := &componentCounts{}
	if g, ok := eng.(engines.Gateway); ok {
		out.gateway, _ = g.APIGateway(rt)
	}
	if comps.Master {
		sts, err := r.statefulSet(ctx, rt, "-master")
		if err != nil {
			return nil, err
		}
		c := observeStatefulSet(sts)
		c.name = rt.GetName() + "-master"
		out.masters = &c
	}
	if comps.Worker {
		sts, err := r.statefulSet(ctx, rt, "-worker")
		if err != nil {
			return nil, err
		}
		c := observeStatefulSet(sts)
		c.name = rt.GetName() + "-worker"
		out.workers = &c
		if sts != nil {
			if sel, err := metav1.LabelSelectorAsSelector(sts.Spec.Selector); err == nil {
				s := sel.String()
				out.selector = &s
			}
		}
	}
	fuse := &appsv1.DaemonSet{}
	switch err := r.Client.Get(ctx, types.NamespacedName{Namespace: rt.GetNamespace(), Name: rt.GetName() + datav1alpha1.FuseDaemonSetSuffix}, fuse); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, err
	default:
		out.fuse = &fuse.Status
	}
	return out, nil
}

// waiting is the reason the cache is not ready yet (masters first), or ""
// when every desired master and worker is ready. FUSE pods run only where
// Pods use the Dataset, so they never hold binding back.
func (c *componentCounts) waiting() string {
	switch {
	case c.masters != nil && !c.masters.done:
		return ReasonMastersNotReady
	case c.workers != nil && !c.workers.done:
		return ReasonWorkersNotReady
	}
	return ""
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

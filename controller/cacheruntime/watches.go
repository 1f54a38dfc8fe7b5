package cacheruntime

import (
	"context"
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/volume"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/cachecleanup"
	"github.com/sluice-data/sluice/engines/workloads/ufsmeta"
)

// What wakes a runtime: changes of its spec and of the Dataset's, of its
// release's StatefulSets (its workers became ready: bind now rather than at
// the next requeue) and Jobs (a mount Job finished), and of the Pods that
// matter to it; not its own status writes.

// runtimeChanged passes a runtime's creation and deletion and the updates
// of its spec, labels, annotations or deletion timestamp, not those of its
// status alone (this controller's own writes).
var runtimeChanged = predicate.Or[client.Object](
	predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{},
	predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return !e.ObjectOld.GetDeletionTimestamp().Equal(e.ObjectNew.GetDeletionTimestamp())
	}},
)

// datasetChanged passes a Dataset's creation, deletion and spec changes
// (mounts, options and placement feed the release's values).
var datasetChanged = predicate.GenerationChangedPredicate{}

// podChanged passes the Pod updates a runtime acts on: scheduling,
// readiness, phase, address (cache metrics), labels and deletion.
var podChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	old, okOld := e.ObjectOld.(*corev1.Pod)
	cur, okNew := e.ObjectNew.(*corev1.Pod)
	if !okOld || !okNew {
		return true
	}
	return podReady(old) != podReady(cur) || old.Spec.NodeName != cur.Spec.NodeName || old.Status.Phase != cur.Status.Phase ||
		old.Status.PodIP != cur.Status.PodIP || !maps.Equal(old.Labels, cur.Labels) || !old.DeletionTimestamp.Equal(cur.DeletionTimestamp)
}}

// statefulSetChanged passes a StatefulSet's spec and status changes, and
// those of the Dataset mounts it was rendered for (engines.MountsAnnotation).
var statefulSetChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	old, okOld := e.ObjectOld.(*appsv1.StatefulSet)
	cur, okNew := e.ObjectNew.(*appsv1.StatefulSet)
	if !okOld || !okNew {
		return true
	}
	return old.Generation != cur.Generation || !equality.Semantic.DeepEqual(old.Status, cur.Status) ||
		old.Annotations[engines.MountsAnnotation] != cur.Annotations[engines.MountsAnnotation]
}}

// jobChanged passes a Job's creation and deletion and the changes of its
// conditions (a mount, cleanup or metadata Job succeeded or failed).
var jobChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	old, okOld := e.ObjectOld.(*batchv1.Job)
	cur, okNew := e.ObjectNew.(*batchv1.Job)
	return !okOld || !okNew || !equality.Semantic.DeepEqual(old.Status.Conditions, cur.Status.Conditions)
}}

// sameName maps a Dataset to the runtime of its name.
func sameName(_ context.Context, o client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(o)}}
}

// releaseRequests maps an object that Helm created for a release to the
// runtime of the release's name (Helm annotates every object it creates
// with its release).
func releaseRequests(_ context.Context, o client.Object) []reconcile.Request {
	a := o.GetAnnotations()
	if name := a[helm.ReleaseNameAnnotation]; name != "" && a[helm.ReleaseNamespaceAnnotation] == o.GetNamespace() {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	}
	return nil
}

// enginePodRequests maps an engine's pod, labelled by its chart with its
// release (the runtime) and managed-by=sluice, to its runtime.
func enginePodRequests(p *corev1.Pod) []reconcile.Request {
	if inst := p.Labels["app.kubernetes.io/instance"]; inst != "" && p.Labels["app.kubernetes.io/managed-by"] == "sluice" {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: inst}}}
	}
	return nil
}

// podRequests maps a Pod to the runtimes it matters to: those whose Dataset
// it uses (deletion waits for it: volume.Uses) and, for an engine pod, its release
// (worker readiness moves node labels).
func podRequests(_ context.Context, o client.Object) []reconcile.Request {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return nil
	}
	var out []reconcile.Request
	for _, name := range volume.UsedNames(p) {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: p.Namespace, Name: name}})
	}
	return append(out, enginePodRequests(p)...)
}

// jobRequests maps the Jobs a runtime's reconciler runs to their runtime: a
// cache cleanup Job of this reconciler's engine (labelled by
// engines/workloads/cachecleanup) to the runtime whose deletion runs it, a
// metadata Job (ufsmeta.LabelComponent) to the runtime that controls it, and a
// Job of the engine's release (a mount Job) to the runtime of the release.
func (r *Reconciler) jobRequests(ctx context.Context, o client.Object) []reconcile.Request {
	l := o.GetLabels()
	if name := l[cachecleanup.LabelRuntime]; name != "" && l[cachecleanup.LabelEngine] == r.Engine.Type() {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	}
	if l[ufsmeta.LabelComponent] != ufsmeta.Component {
		return releaseRequests(ctx, o)
	}
	if ref := metav1.GetControllerOf(o); ref != nil {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}}}
	}
	return nil
}

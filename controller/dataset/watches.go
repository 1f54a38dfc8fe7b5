package dataset

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/volume"
)

// What wakes a Dataset: only the versions that leave this controller
// something to do (no finalizer yet, no phase yet, being deleted), not the
// runtime controller's binding and cache-state writes of a settled Dataset;
// the end of a Pod using a deleted Dataset; the removal of a runtime.

// needsReconcile passes a Dataset that lacks the finalizer or a phase, or
// is being deleted; not its removal (nothing is left to do), nor the
// version in which this controller's own finalizer appeared: the reconcile
// that added it went on to write the phase (or failed, and is retried), so
// a reconcile of that version would only read a phase the cache does not
// show yet, and pay a refused patch and a read to find it written.
var needsReconcile = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool { return needsWork(e.Object) },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return needsWork(e.ObjectNew) && !finalizerAdded(e.ObjectOld, e.ObjectNew)
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(e event.GenericEvent) bool { return needsWork(e.Object) },
}

func needsWork(o client.Object) bool {
	ds, ok := o.(*datav1alpha1.Dataset)
	if !ok {
		return true
	}
	return !ds.DeletionTimestamp.IsZero() || !controllerutil.ContainsFinalizer(ds, Finalizer) || ds.Status.Phase == datav1alpha1.NoneDatasetPhase
}

// finalizerAdded says whether cur is the version in which this
// controller's finalizer was added to a Dataset not being deleted.
func finalizerAdded(old, cur client.Object) bool {
	return !controllerutil.ContainsFinalizer(old, Finalizer) && controllerutil.ContainsFinalizer(cur, Finalizer) && cur.GetDeletionTimestamp().IsZero()
}

// podFinished passes a Pod's removal and its updates to Succeeded or
// Failed: the moments a Pod stops using a Dataset.
var podFinished = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, okOld := e.ObjectOld.(*corev1.Pod)
		cur, okNew := e.ObjectNew.(*corev1.Pod)
		return okOld && okNew && old.Status.Phase != cur.Status.Phase && finished(cur)
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func finished(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// deletingDatasetsUsedBy maps a Pod to the Datasets it used that are being
// deleted (from the cache): only their deletion waits for it.
func (r *Reconciler) deletingDatasetsUsedBy(ctx context.Context, o client.Object) []reconcile.Request {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return nil
	}
	var out []reconcile.Request
	for _, name := range volume.UsedNames(p) {
		key := types.NamespacedName{Namespace: p.Namespace, Name: name}
		ds := &datav1alpha1.Dataset{}
		if r.Client.Get(ctx, key, ds) == nil && !ds.DeletionTimestamp.IsZero() {
			out = append(out, reconcile.Request{NamespacedName: key})
		}
	}
	return out
}

// removed passes only the removal of an object.
var removed = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// datasetOfRuntime maps a runtime to the Dataset of its name (the only one
// it can be bound to).
func datasetOfRuntime(_ context.Context, o client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(o)}}
}

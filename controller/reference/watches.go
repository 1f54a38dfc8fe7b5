package reference

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// What wakes a reference dataset's runtime: changes of its spec, labels,
// annotations or deletion (not its own status writes); any change of its
// Dataset; and any change of a referenced Dataset, which wakes the
// reference datasets its status.datasetRef lists (a reference not recorded
// yet looks again on its own, every waitDataset).

// runtimeChanged passes a runtime's creation and deletion and the updates
// of its spec, labels, annotations or deletion timestamp.
var runtimeChanged = predicate.Or[client.Object](
	predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{},
	predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		return !e.ObjectOld.GetDeletionTimestamp().Equal(e.ObjectNew.GetDeletionTimestamp())
	}},
)

// datasetChanged passes a Dataset's creation and removal and the updates
// of its spec, status, annotations or deletion timestamp.
var datasetChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	old, okOld := e.ObjectOld.(*datav1alpha1.Dataset)
	cur, okNew := e.ObjectNew.(*datav1alpha1.Dataset)
	if !okOld || !okNew {
		return true
	}
	return old.Generation != cur.Generation || !old.DeletionTimestamp.Equal(cur.DeletionTimestamp) ||
		!equality.Semantic.DeepEqual(old.Annotations, cur.Annotations) || !equality.Semantic.DeepEqual(old.Status, cur.Status)
}}

// referencesOf maps a Dataset to the runtime of its name (served only when
// it is a reference dataset's) and to the runtimes of the reference
// datasets its status.datasetRef lists.
func referencesOf(_ context.Context, o client.Object) []reconcile.Request {
	out := []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(o)}}
	ds, ok := o.(*datav1alpha1.Dataset)
	if !ok {
		return out
	}
	for _, ref := range ds.Status.DatasetRef {
		if ns, name, ok := strings.Cut(ref, "/"); ok && ns != "" && name != "" {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
		}
	}
	return out
}

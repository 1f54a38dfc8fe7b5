package sidecarexit

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Reconciler annotates the Pods whose apps are done (AppsDone).
type Reconciler struct {
	Client client.Client
}

// Reconcile implements reconcile.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !AppsDone(pod) {
		return ctrl.Result{}, nil
	}
	// A merge patch of the one annotation, guarded by the resourceVersion
	// read: a container restarted since is seen again, not overwritten.
	patch := client.MergeFromWithOptions(pod.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[datav1alpha1.AnnotationAppsDone] = "true"
	if err := r.Client.Patch(ctx, pod, patch); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ctrl.LoggerFrom(ctx).Info("app containers done; their FUSE sidecars are told to stop", "pod", req.NamespacedName)
	return ctrl.Result{}, nil
}

// watched lets through the events of Pods that Watched selects.
var watched = predicate.Funcs{
	CreateFunc:  func(e event.CreateEvent) bool { return isWatched(e.Object) },
	UpdateFunc:  func(e event.UpdateEvent) bool { return isWatched(e.ObjectNew) },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(e event.GenericEvent) bool { return isWatched(e.Object) },
}

func isWatched(o client.Object) bool {
	pod, ok := o.(*corev1.Pod)
	return ok && Watched(pod)
}

// SetupWithManager registers the reconciler for the Pods Watched selects.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		return errors.New("sidecar exit reconciler: Client is required")
	}
	if err := ctrl.NewControllerManagedBy(mgr).Named("sidecarexit").
		For(&corev1.Pod{}, builder.WithPredicates(watched)).
		Complete(r); err != nil {
		return fmt.Errorf("building the sidecar exit controller: %w", err)
	}
	return nil
}

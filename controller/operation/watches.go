package operation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/controller/internal/backoff"
)

// Field indexes on each operation kind, for the watches that map other
// objects back to operations.
const (
	// indexRelease: the operation's release (its Job or CronJob name).
	indexRelease = "sluice.operation.release"
	// indexTarget: "namespace/name" of the Dataset it targets.
	indexTarget = "sluice.operation.target"
	// indexRunAfter: "Kind/name" of the operations it waits for.
	indexRunAfter = "sluice.operation.runAfter"
)

// SetupWithManager registers the reconciler for its kind, woken by its
// operations, by the Jobs and CronJobs of their releases (a CronJob's runs
// through their owner), by the Datasets they wait for and by the
// operations they run after.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	op, ok := datav1alpha1.NewOperation(string(r.Kind))
	if !ok {
		return fmt.Errorf("operation reconciler: unknown kind %q", r.Kind)
	}
	if r.Client == nil || r.Live == nil || r.Helm == nil || r.Conflicts == nil {
		return errors.New("operation reconciler: Client, Live, Helm and Conflicts are required")
	}
	r.claimer = &claim.Claimer{Client: r.Live, Grace: r.Grace, Attempts: 8}
	if err := r.index(mgr, op); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).Named(strings.ToLower(string(r.Kind))).For(op).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(1, r.Concurrency), RateLimiter: backoff.RateLimiter()}).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.byRelease(jobRelease))).
		Watches(&batchv1.CronJob{}, handler.EnqueueRequestsFromMapFunc(r.byRelease(func(o client.Object) string { return o.GetName() }))).
		Watches(&datav1alpha1.Dataset{}, handler.EnqueueRequestsFromMapFunc(r.byTarget))
	for _, kind := range []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind, datav1alpha1.DataMigrateKind, datav1alpha1.DataBackupKind, datav1alpha1.DataProcessKind} {
		prev, _ := datav1alpha1.NewOperation(string(kind))
		b = b.Watches(prev, handler.EnqueueRequestsFromMapFunc(r.byRunAfter(kind)))
	}
	if err := b.Complete(r); err != nil {
		return fmt.Errorf("building the %s controller: %w", r.Kind, err)
	}
	return nil
}

// index registers the field indexes of the reconciler's kind.
func (r *Reconciler) index(mgr ctrl.Manager, op client.Object) error {
	ctx := context.Background()
	indexer := mgr.GetFieldIndexer()
	indexes := map[string]client.IndexerFunc{
		indexRelease: func(o client.Object) []string { return []string{ReleaseName(r.Kind, o.GetName())} },
		indexTarget: func(o client.Object) []string {
			if ns, name, ok := claim.Target(o); ok {
				return []string{ns + "/" + name}
			}
			return nil
		},
		indexRunAfter: func(o client.Object) []string { return runAfterKeys(o.(datav1alpha1.OperationObject)) },
	}
	for name, fn := range indexes {
		if err := indexer.IndexField(ctx, op, name, fn); err != nil {
			return fmt.Errorf("indexing %s by %s: %w", r.Kind, name, err)
		}
	}
	return nil
}

// runAfterKeys are the operations op waits for, "Kind/name".
func runAfterKeys(op datav1alpha1.OperationObject) []string {
	ref := op.GetRunAfter()
	if ref == nil {
		return nil
	}
	keys := []string{string(ref.Kind) + "/" + ref.Name}
	if d := ref.AffinityStrategy.DependOn; d != nil {
		keys = append(keys, string(d.Kind)+"/"+d.Name)
	}
	return keys
}

// jobRelease is the release a Job belongs to: Helm's annotation on a Once
// operation's Job, the owning CronJob's name on a Cron run.
func jobRelease(o client.Object) string {
	if name := o.GetAnnotations()[helm.ReleaseNameAnnotation]; name != "" {
		return name
	}
	if owner := metav1.GetControllerOf(o); owner != nil && owner.Kind == "CronJob" {
		return owner.Name
	}
	return ""
}

// byRelease maps a workload to the operation whose release made it.
func (r *Reconciler) byRelease(release func(client.Object) string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		name := release(o)
		if name == "" {
			return nil
		}
		return r.requests(ctx, o.GetNamespace(), client.MatchingFields{indexRelease: name}, nil)
	}
}

// byTarget maps a Dataset to the operations of the kind that target it and
// may be waiting for it (finished ones are not).
func (r *Reconciler) byTarget(ctx context.Context, o client.Object) []reconcile.Request {
	return r.requests(ctx, o.GetNamespace(), client.MatchingFields{indexTarget: o.GetNamespace() + "/" + o.GetName()},
		func(op datav1alpha1.OperationObject) bool { return !over(op) })
}

// byRunAfter maps an operation of kind to the operations of the
// reconciler's kind that wait for it and have not started.
func (r *Reconciler) byRunAfter(kind datav1alpha1.OperationKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return r.requests(ctx, o.GetNamespace(), client.MatchingFields{indexRunAfter: string(kind) + "/" + o.GetName()},
			func(op datav1alpha1.OperationObject) bool {
				p := op.GetOperationStatus().Phase
				return p == datav1alpha1.PhaseNone || p == datav1alpha1.PhasePending
			})
	}
}

// requests lists the reconciler's operations in namespace matching fields
// (and keep, when set) as reconcile requests.
func (r *Reconciler) requests(ctx context.Context, namespace string, fields client.MatchingFields, keep func(datav1alpha1.OperationObject) bool) []reconcile.Request {
	list, err := r.list(ctx, namespace, fields)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "mapping to operations", "kind", r.Kind, "fields", fields)
		return nil
	}
	var out []reconcile.Request
	for _, op := range list {
		if keep == nil || keep(op) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(op)})
		}
	}
	return out
}

// list lists the reconciler's operations in namespace matching fields.
func (r *Reconciler) list(ctx context.Context, namespace string, fields client.MatchingFields) ([]datav1alpha1.OperationObject, error) {
	list, ok := datav1alpha1.NewOperationList(string(r.Kind))
	if !ok {
		return nil, fmt.Errorf("unknown operation kind %q", r.Kind)
	}
	if err := r.Client.List(ctx, list, client.InNamespace(namespace), fields); err != nil {
		return nil, err
	}
	return list.GetOperations(), nil
}

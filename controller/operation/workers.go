package operation

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
	"github.com/sluice-data/sluice/internal/optional"
)

// workersAnnotation is how many workers a run of a parallel operation
// needs, on the StatefulSet of its workers (charts/dataop).
const workersAnnotation = "dataop.sluice.io/workers"

// scaleWorkers keeps a parallel operation's workers up while a run
// executes and at zero otherwise: scaled up when a Cron run is resumed,
// down when a run ends (a Once operation's release installs them up, its
// run executing). An operation without workers passes.
func (r *Reconciler) scaleWorkers(ctx context.Context, s *scope) (ctrl.Result, bool, error) {
	executing := s.obs.run != nil && s.obs.run.executing && !s.obs.run.done
	return ctrl.Result{}, true, r.setWorkers(ctx, s.op, s.release, executing)
}

// stopWorkers scales an operation's workers to zero, once it is over.
func (r *Reconciler) stopWorkers(ctx context.Context, op datav1alpha1.OperationObject) error {
	return r.setWorkers(ctx, op, ReleaseName(r.Kind, op.GetName()), false)
}

// setWorkers scales the workers of release to what a run needs, or to
// zero, if its StatefulSet exists and the release created it.
func (r *Reconciler) setWorkers(ctx context.Context, op datav1alpha1.OperationObject, release string, up bool) error {
	sts := &appsv1.StatefulSet{}
	key := types.NamespacedName{Namespace: op.GetNamespace(), Name: dataop.WorkersName(release)}
	if found, err := optional.Get(ctx, r.Client, key, sts); err != nil || !found {
		return err
	}
	raw, ok := sts.Annotations[workersAnnotation]
	if !ok || sts.Annotations[helm.ReleaseNameAnnotation] != release {
		return nil // not workers this operation's release created
	}
	want := int32(0)
	if up {
		n, err := strconv.ParseInt(raw, 10, 32)
		if err != nil || n < 0 {
			return fmt.Errorf("StatefulSet %s: annotation %s=%q is not a number of workers", key, workersAnnotation, raw)
		}
		want = int32(n)
	}
	if ptr.Deref(sts.Spec.Replicas, 1) == want {
		return nil
	}
	patch := client.MergeFrom(sts.DeepCopy())
	sts.Spec.Replicas = ptr.To(want)
	if err := r.Client.Patch(ctx, sts, patch); err != nil {
		return fmt.Errorf("scaling the workers %s to %d: %w", key, want, err)
	}
	ctrl.LoggerFrom(ctx).Info("scaled the operation's workers", "statefulset", key.Name, "replicas", want)
	return nil
}

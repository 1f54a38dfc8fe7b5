package fake

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Operation implements engines.Engine: a pause-image Job, or for a
// Cron operation a CronJob whose runs start suspended (unless UngatedCron),
// with the affinity the controller derived from runAfter. A DataMigrate
// with spec.parallelism n above 1 runs through charts/dataop instead, a
// pause pod with n-1 pause workers. The kinds in Unsupported are refused
// with engines.ReasonUnsupported.
func (e Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	kind := req.Op.GetOperationKind()
	if slices.Contains(e.Unsupported, kind) {
		return engines.OperationRelease{}, engines.Unsupported(e.Type(), string(kind))
	}
	if dm, ok := req.Op.(*datav1alpha1.DataMigrate); ok && dm.Spec.Parallelism > 1 {
		pause := corev1.Container{Name: "pause", Image: "registry.k8s.io/pause:3.10"}
		return dataop.Release(req, dataop.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{pause}},
			Workers: &dataop.Workers{Replicas: dm.Spec.Parallelism - 1, Spec: corev1.PodSpec{Containers: []corev1.Container{pause}}}})
	}
	values := map[string]any{
		"kind": string(kind), "policy": string(req.Op.GetPolicy()), "schedule": req.Op.GetSchedule(), "gateRuns": !e.UngatedCron,
	}
	if req.Affinity != nil {
		aff, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(req.Affinity)
		if err != nil {
			return engines.OperationRelease{}, err
		}
		values["affinity"] = aff
	}
	return engines.OperationRelease{Chart: charts.FakeOp, Values: values}, nil
}

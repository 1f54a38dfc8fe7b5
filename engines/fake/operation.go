package fake

import (
	"slices"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/sluice-data/sluice/charts"
	"github.com/sluice-data/sluice/engines"
)

var _ engines.Operations = Engine{}

// Operation implements engines.Operations: a pause-image Job, or for a
// Cron operation a CronJob whose runs start suspended (unless UngatedCron),
// with the affinity the controller derived from runAfter. The kinds in
// Unsupported are refused with engines.ReasonUnsupported.
func (e Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	kind := req.Op.GetOperationKind()
	if slices.Contains(e.Unsupported, kind) {
		return engines.OperationRelease{}, engines.Unsupported(e.Type(), string(kind))
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

package process

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Operations renders DataProcesses; it needs no runtime.
type Operations struct{}

var _ engines.Operations = Operations{}

// Operation implements engines.Operations for DataProcess; any other kind
// is ReasonUnsupported (its engine renders it).
func (Operations) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	dp, ok := req.Op.(*datav1alpha1.DataProcess)
	if !ok {
		return engines.OperationRelease{}, engines.Unsupported("process", string(req.Op.GetOperationKind()))
	}
	if req.Dataset == nil {
		return engines.OperationRelease{}, engines.Invalid("a DataProcess request needs its Dataset")
	}
	p := dp.Spec.Processor
	var (
		pod dataop.Pod
		err error
	)
	switch {
	case p.Job != nil && p.Script != nil:
		return engines.OperationRelease{}, engines.Invalid("spec.processor: set job or script, not both")
	case p.Job != nil:
		pod, err = jobPod(p)
	case p.Script != nil:
		pod, err = scriptPod(p)
	default:
		return engines.OperationRelease{}, engines.Invalid("spec.processor: set job (a podSpec) or script")
	}
	if err != nil {
		return engines.OperationRelease{}, err
	}
	if err := mountDataset(&pod.Spec, req.Dataset.Name, dp.Spec.Dataset, fieldsOf(p)); err != nil {
		return engines.OperationRelease{}, err
	}
	return dataop.Release(req, pod)
}

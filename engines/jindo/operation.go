package jindo

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/dataop"
)

var _ engines.Operations = Engine{}

// Operation implements engines.Operations: DataLoad runs `jindocache
// -load` of each target. DataMigrate and DataBackup are unsupported, as in
// Fluid's JindoCache engine.
func (Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	kind, _ := engines.OperationKind(req.Op)
	if kind != datav1alpha1.DataLoadKind {
		return engines.OperationRelease{}, engines.Unsupported("Jindo", string(kind))
	}
	if err := dataop.Check(req); err != nil {
		return engines.OperationRelease{}, err
	}
	rt, ok := req.Runtime.(*datav1alpha1.JindoRuntime)
	if !ok {
		return engines.OperationRelease{}, engines.Invalid("the Jindo engine serves JindoRuntimes, not %T", req.Runtime)
	}
	if rt.Spec.Master.Disabled || rt.Spec.Worker.Disabled {
		return engines.OperationRelease{}, engines.Invalid("JindoRuntime %s/%s runs FUSE alone (spec.master.disabled, spec.worker.disabled): there is no cache to load into", rt.Namespace, rt.Name)
	}
	pod, err := loadPod(req.Dataset, rt, req.Op.(*datav1alpha1.DataLoad))
	if err != nil {
		return engines.OperationRelease{}, err
	}
	return dataop.Release(req, pod)
}

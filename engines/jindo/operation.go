package jindo

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Operation implements engines.Engine: DataLoad runs `jindocache
// -load` of each target. DataMigrate and DataBackup are unsupported, as in
// Fluid's JindoCache engine.
func (e Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	return e.operations().Render("Jindo", req)
}

// operations build the pods of the operations, in the runtime's image.
func (e Engine) operations() dataop.Builders[*datav1alpha1.JindoRuntime] {
	return dataop.Builders[*datav1alpha1.JindoRuntime]{
		datav1alpha1.DataLoadKind: func(req engines.OperationRequest, rt *datav1alpha1.JindoRuntime) (dataop.Pod, error) {
			if rt.Spec.Master.Disabled || rt.Spec.Worker.Disabled {
				return dataop.Pod{}, engines.Invalid("JindoRuntime %s/%s runs FUSE alone (spec.master.disabled, spec.worker.disabled): there is no cache to load into", rt.Namespace, rt.Name)
			}
			return loadPod(req.Dataset, rt, req.Op.(*datav1alpha1.DataLoad), imageOf(e.defaultImage(0), rt.Spec.JindoVersion))
		},
	}
}

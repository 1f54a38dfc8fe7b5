package juicefs

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Operation implements engines.Engine. DataLoad warms the cache with
// `juicefs warmup` through the Dataset's FUSE mount; DataMigrate copies
// between the volume and external storage with `juicefs sync`. DataBackup
// is unsupported, as in Fluid: JuiceFS keeps its metadata in the user's
// own metadata engine, which Sluice does not run.
func (e Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	return e.operations().Render("JuiceFS", req)
}

// operations build the pods of the operations, in the engine's images.
func (e Engine) operations() dataop.Builders[*datav1alpha1.JuiceFSRuntime] {
	return dataop.Builders[*datav1alpha1.JuiceFSRuntime]{
		datav1alpha1.DataLoadKind: func(req engines.OperationRequest, rt *datav1alpha1.JuiceFSRuntime) (dataop.Pod, error) {
			if err := hasMounts(req.Dataset); err != nil {
				return dataop.Pod{}, err
			}
			return warmupPod(req.Dataset, rt, req.Op.(*datav1alpha1.DataLoad), e.runtimeImage(rt))
		},
		datav1alpha1.DataMigrateKind: func(req engines.OperationRequest, rt *datav1alpha1.JuiceFSRuntime) (dataop.Pod, error) {
			if err := hasMounts(req.Dataset); err != nil {
				return dataop.Pod{}, err
			}
			return syncPod(req.Dataset, rt, req.Op.(*datav1alpha1.DataMigrate), req.Release, e.runtimeImage(rt))
		},
	}
}

// hasMounts: a JuiceFS Dataset's first mount names the file system both
// commands reach.
func hasMounts(ds *datav1alpha1.Dataset) error {
	if len(ds.Spec.Mounts) == 0 {
		return engines.Invalid("dataset %s/%s: spec.mounts is empty; a JuiceFS Dataset needs one mount, of the file system (juicefs:///)", ds.Namespace, ds.Name)
	}
	return nil
}

// timeoutOption is the option both commands take as the time they may run
// (coreutils timeout's duration, e.g. 30m), as in Fluid; the other options
// become the command's flags.
const (
	timeoutOption  = "timeout"
	defaultTimeout = "30m"
)

func timeoutOf(opts map[string]string) string {
	if t := opts[timeoutOption]; t != "" {
		return t
	}
	return defaultTimeout
}

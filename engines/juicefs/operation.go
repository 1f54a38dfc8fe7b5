package juicefs

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/dataop"
)

var _ engines.Operations = Engine{}

// Operation implements engines.Operations. DataLoad warms the cache with
// `juicefs warmup` through the Dataset's FUSE mount; DataMigrate copies
// between the volume and external storage with `juicefs sync`. DataBackup
// is unsupported, as in Fluid: JuiceFS keeps its metadata in the user's
// own metadata engine, which Sluice does not run.
func (Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	kind, _ := engines.OperationKind(req.Op)
	if kind != datav1alpha1.DataLoadKind && kind != datav1alpha1.DataMigrateKind {
		return engines.OperationRelease{}, engines.Unsupported("JuiceFS", string(kind))
	}
	if err := dataop.Check(req); err != nil {
		return engines.OperationRelease{}, err
	}
	rt, ok := req.Runtime.(*datav1alpha1.JuiceFSRuntime)
	if !ok {
		return engines.OperationRelease{}, engines.Invalid("the JuiceFS engine serves JuiceFSRuntimes, not %T", req.Runtime)
	}
	if len(req.Dataset.Spec.Mounts) == 0 {
		return engines.OperationRelease{}, engines.Invalid("dataset %s/%s has no mounts", req.Dataset.Namespace, req.Dataset.Name)
	}
	var (
		pod dataop.Pod
		err error
	)
	switch op := req.Op.(type) {
	case *datav1alpha1.DataLoad:
		pod, err = warmupPod(req.Dataset, rt, op)
	case *datav1alpha1.DataMigrate:
		pod, err = syncPod(req.Dataset, rt, op)
	}
	if err != nil {
		return engines.OperationRelease{}, err
	}
	return dataop.Release(req, pod)
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

package thin

import (
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/workloads/dataop"
)

// Operation implements engines.Engine as ProfileEngine's, for a
// runtime without a profile.
func (e Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	return ProfileEngine{SluiceImage: e.SluiceImage}.Operation(req)
}

// Operation implements engines.Engine. A DataLoad reads the target
// files through the Dataset's mount (sluice warmup, loadPod), which fills
// the FUSE program's cache. Fluid's ThinRuntime runs no DataLoad, and its
// ThinRuntimeProfile names no load command (docs/compatibility.md). The
// other kinds are unsupported, as in Fluid: a ThinRuntimeProfile names no
// command to migrate or back up data (DataProcess, which Fluid runs on
// Thin, engines/workloads/process renders for every engine).
func (e ProfileEngine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	return dataop.Builders[*datav1alpha1.ThinRuntime]{datav1alpha1.DataLoadKind: e.loadPod}.Render("Thin", req)
}

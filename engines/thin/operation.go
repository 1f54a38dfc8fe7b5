package thin

import (
	"github.com/sluice-data/sluice/engines"
)

var (
	_ engines.Operations = Engine{}
	_ engines.Operations = ProfileEngine{}
)

// Operation implements engines.Operations: a ThinRuntime runs none of the
// engine operations. Its FUSE program is the user's, and a
// ThinRuntimeProfile names no command to load, migrate or back up data
// (Fluid's profile has no such field either; Fluid runs only DataProcess
// on Thin, which engines/process renders for every engine).
func (Engine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	kind, _ := engines.OperationKind(req.Op)
	return engines.OperationRelease{}, engines.Unsupported("Thin", string(kind))
}

// Operation implements engines.Operations, as Engine's.
func (ProfileEngine) Operation(req engines.OperationRequest) (engines.OperationRelease, error) {
	return Engine{}.Operation(req)
}

package dataop

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// Builder builds the pod that runs one kind of operation on a runtime of
// type R.
type Builder[R client.Object] func(req engines.OperationRequest, rt R) (Pod, error)

// Builders are the kinds of operation an engine runs, each with its pod
// builder; Render is the engine's engines.Operations.
type Builders[R client.Object] map[datav1alpha1.OperationKind]Builder[R]

// Render renders req for the engine named engine: Unsupported for a kind
// it has no builder for (before anything else is read, so the controller
// can fail the operation at once), Check's error for a request no engine
// can run, InvalidSpec when the runtime is not an R, else the release of
// the pod the kind's builder builds.
func (b Builders[R]) Render(engine string, req engines.OperationRequest) (engines.OperationRelease, error) {
	kind := req.Op.GetOperationKind()
	build, ok := b[kind]
	if !ok {
		return engines.OperationRelease{}, engines.Unsupported(engine, string(kind))
	}
	if err := Check(req); err != nil {
		return engines.OperationRelease{}, err
	}
	rt, ok := req.Runtime.(R)
	if !ok {
		var want R
		return engines.OperationRelease{}, engines.Invalid("the %s engine serves %T, not %T", engine, want, req.Runtime)
	}
	pod, err := build(req, rt)
	if err != nil {
		return engines.OperationRelease{}, err
	}
	return Release(req, pod)
}

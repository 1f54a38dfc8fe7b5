package runtime

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
)

// statusOf returns the shared status of any runtime kind; obj must be one
// (the reconciler only reads runtime kinds).
func statusOf(obj client.Object) *datav1alpha1.RuntimeStatus {
	return obj.(datav1alpha1.RuntimeObject).GetRuntimeStatus()
}

// workerPhase derives a component phase from ready and desired counts.
func workerPhase(ready, desired int32) datav1alpha1.RuntimePhase {
	switch {
	case ready >= desired:
		return datav1alpha1.RuntimePhaseReady
	case ready > 0:
		return datav1alpha1.RuntimePhasePartialReady
	}
	return datav1alpha1.RuntimePhaseNotReady
}

// fuseCleanPolicy returns the runtime's FUSE cleanPolicy: the one eng (this
// reconcile's engine) says, when it says (engines.FuseVolume: a Thin
// runtime's, else its profile's), else the runtime's own; unset, Fluid's
// default OnRuntimeDeleted.
func fuseCleanPolicy(eng engines.Engine, obj client.Object) string {
	var p datav1alpha1.FuseCleanPolicy
	if v, ok := eng.(engines.FuseVolume); ok {
		p = v.FuseCleanPolicy(obj)
	} else {
		p = obj.(datav1alpha1.RuntimeObject).GetFuseCleanPolicy()
	}
	if p == "" {
		return string(datav1alpha1.OnRuntimeDeletedCleanPolicy)
	}
	return string(p)
}

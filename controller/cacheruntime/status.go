package cacheruntime

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
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

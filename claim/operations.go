package claim

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Target returns the Dataset an object claims if it is a data operation
// (see datav1alpha1.OperationObject.GetTargetDataset). ok is false when it
// names none or obj is not a data operation.
func Target(obj client.Object) (namespace, name string, ok bool) {
	o, isOp := obj.(datav1alpha1.OperationObject)
	if !isOp {
		return "", "", false
	}
	return o.GetTargetDataset()
}

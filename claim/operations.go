package claim

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Finished reports whether an operation reached a terminal phase; an object
// that is not a data operation never finishes.
func Finished(op client.Object) bool {
	o, ok := op.(datav1alpha1.OperationObject)
	return ok && o.GetOperationStatus().Finished()
}

// Target returns the Dataset an operation works on (see
// datav1alpha1.OperationObject.GetTargetDataset). ok is false when it names
// none or op is not a data operation.
func Target(op client.Object) (namespace, name string, ok bool) {
	o, isOp := op.(datav1alpha1.OperationObject)
	if !isOp {
		return "", "", false
	}
	return o.GetTargetDataset()
}

// NewOperation returns a new object of the named operation kind.
func NewOperation(kind string) (client.Object, bool) {
	return datav1alpha1.NewOperation(kind)
}

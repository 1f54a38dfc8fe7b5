package statuspatch

import (
	"k8s.io/apimachinery/pkg/api/equality"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// DatasetStatus is the change, for Write, that gives a Dataset the status
// status computes from it as read; no change when it has that status
// already.
func DatasetStatus(status func(*datav1alpha1.Dataset) datav1alpha1.DatasetStatus) func(*datav1alpha1.Dataset) bool {
	return func(d *datav1alpha1.Dataset) bool {
		next := status(d)
		if equality.Semantic.DeepEqual(d.Status, next) {
			return false
		}
		d.Status = next
		return true
	}
}

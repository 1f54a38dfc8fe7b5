package statuspatch_test

import (
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/internal/statuspatch"
)

// TestDatasetStatusChangesOnlyWhatDiffers: the change sets the computed
// status and reports a change, and reports none when the Dataset has it.
func TestDatasetStatusChangesOnlyWhatDiffers(t *testing.T) {
	change := statuspatch.DatasetStatus(func(*datav1alpha1.Dataset) datav1alpha1.DatasetStatus {
		return datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase}
	})
	ds := &datav1alpha1.Dataset{}
	if !change(ds) || ds.Status.Phase != datav1alpha1.BoundDatasetPhase {
		t.Fatalf("the change did not set the status: %+v", ds.Status)
	}
	if change(ds) {
		t.Fatal("a Dataset that has the status is changed again")
	}
}

package operations_test

import (
	"testing"
	"time"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/metrics"
)

// dataLoadMetric is the value of a DataLoad series of the controller's
// registry (the histogram's: its count), 0 when it has none.
func dataLoadMetric(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue series
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return 0
}

// TestOperationMetricsFollowTheOperations: the controller's data-operation
// metrics move with the operations: an executing DataLoad is running, one
// whose Job succeeds counts as completed and one whose Job fails as
// failed, each with its duration observed. Other tests run DataLoads too,
// so the counts are checked to grow, not to equal.
func TestOperationMetricsFollowTheOperations(t *testing.T) {
	ns := env.Namespace(t)
	seed(t, ns, "imagenet", engineFake)
	kind := map[string]string{"kind": "DataLoad"}
	completed := dataLoadMetric(t, metrics.OperationsCompletedName, kind)
	failed := dataLoadMetric(t, metrics.OperationsFailedName, kind)
	completedDurations := dataLoadMetric(t, metrics.OperationDurationName, map[string]string{"kind": "DataLoad", "phase": "Complete"})
	failedDurations := dataLoadMetric(t, metrics.OperationDurationName, map[string]string{"kind": "DataLoad", "phase": "Failed"})

	ok := dataLoad(ns, "counted", "imagenet")
	create(t, ok)
	reaches(t, ok, datav1alpha1.PhaseExecuting, 10*time.Second)
	if running := dataLoadMetric(t, metrics.OperationsRunningName, kind); running < 1 {
		t.Errorf("%s{kind=DataLoad} = %v while a DataLoad executes", metrics.OperationsRunningName, running)
	}
	finishJob(t, ns, waitJob(t, ns, "counted-loader").Name, true)
	reaches(t, ok, datav1alpha1.PhaseComplete, 10*time.Second)
	eventually(t, 5*time.Second, "the completion is counted", func() bool {
		return dataLoadMetric(t, metrics.OperationsCompletedName, kind) > completed &&
			dataLoadMetric(t, metrics.OperationDurationName, map[string]string{"kind": "DataLoad", "phase": "Complete"}) > completedDurations
	})

	bad := dataLoad(ns, "counted-failure", "imagenet")
	create(t, bad)
	finishJob(t, ns, waitJob(t, ns, "counted-failure-loader").Name, false)
	reaches(t, bad, datav1alpha1.PhaseFailed, 10*time.Second)
	eventually(t, 5*time.Second, "the failure is counted", func() bool {
		return dataLoadMetric(t, metrics.OperationsFailedName, kind) > failed &&
			dataLoadMetric(t, metrics.OperationDurationName, map[string]string{"kind": "DataLoad", "phase": "Failed"}) > failedDurations
	})
}

package metrics

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestOperationsCountEnds: every kind's counters start at 0; a completed
// and a failed end count under their kind and phase, with their duration;
// other phases record nothing.
func TestOperationsCountEnds(t *testing.T) {
	o := NewOperations()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range o.Collectors() {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	o.Ended("DataLoad", datav1alpha1.PhaseComplete, 90*time.Second)
	o.Ended("DataLoad", datav1alpha1.PhaseFailed, 3*time.Second)
	o.Ended("DataLoad", datav1alpha1.PhaseExecuting, time.Hour)
	for _, tc := range []struct {
		name string
		want float64
	}{
		{OperationsCompletedName, 1}, // DataLoad's; the other kinds' 0
		{OperationsFailedName, 1},
	} {
		if got := testutil.ToFloat64(o.completedOrFailed(tc.name).WithLabelValues("DataLoad")); got != tc.want {
			t.Errorf("%s{kind=DataLoad} = %v, want %v", tc.name, got, tc.want)
		}
		if got := testutil.ToFloat64(o.completedOrFailed(tc.name).WithLabelValues("DataBackup")); got != 0 {
			t.Errorf("%s{kind=DataBackup} = %v, want 0", tc.name, got)
		}
	}
	if n, err := testutil.GatherAndCount(reg, OperationsCompletedName, OperationsFailedName); err != nil || n != 2*len(datav1alpha1.OperationKinds()) {
		t.Errorf("counter series: %d, %v; want one per kind for each counter", n, err)
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{} // phase of DataLoad -> count, sum
	series := 0
	for _, f := range fams {
		if f.GetName() != OperationDurationName {
			continue
		}
		for _, m := range f.GetMetric() {
			series++
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["kind"] == "DataLoad" {
				got[l["phase"]] = [2]float64{float64(m.GetHistogram().GetSampleCount()), m.GetHistogram().GetSampleSum()}
			}
		}
	}
	if want := map[string][2]float64{"Complete": {1, 90}, "Failed": {1, 3}}; !maps.Equal(got, want) {
		t.Errorf("DataLoad's durations (count, sum) by phase: %v, want %v", got, want)
	}
	if series != 2*len(datav1alpha1.OperationKinds()) {
		t.Errorf("%d duration series, want one per kind and end phase", series)
	}
}

func (o *Operations) completedOrFailed(name string) *prometheus.CounterVec {
	if name == OperationsCompletedName {
		return o.completed
	}
	return o.failed
}

// TestCollectorCountsRunningOperations: executing operations are counted
// by kind, each listed kind has a series (0 when none executes), and a
// finished or pending one is not counted.
func TestCollectorCountsRunningOperations(t *testing.T) {
	load := func(name string, phase datav1alpha1.Phase) client.Object {
		dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}}
		dl.Status.Phase = phase
		return dl
	}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		load("a", datav1alpha1.PhaseExecuting), load("b", datav1alpha1.PhaseExecuting),
		load("c", datav1alpha1.PhaseComplete), load("d", datav1alpha1.PhasePending)).Build()
	reg := newRegistry(t, &Collector{Reader: c, Elected: elected(),
		OperationKinds: []datav1alpha1.OperationKind{datav1alpha1.DataLoadKind, datav1alpha1.DataBackupKind}})
	want := `
# HELP sluice_data_operations_running Data operations executing (phase Executing; for Cron: a run executes), by kind.
# TYPE sluice_data_operations_running gauge
sluice_data_operations_running{kind="DataBackup"} 0
sluice_data_operations_running{kind="DataLoad"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), OperationsRunningName); err != nil {
		t.Error(err)
	}
}

package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/cacheruntime"
	"github.com/sluice-data/sluice/engines"
)

// collectDataset exports one Dataset: its phase, and each figure its
// status holds (a figure the status lacks, or cannot be read as a number,
// has no series).
func collectDataset(ch chan<- prometheus.Metric, ds *datav1alpha1.Dataset) {
	ns, name := ds.Namespace, ds.Name
	for _, p := range datasetPhases {
		ch <- prometheus.MustNewConstMetric(datasetPhase, prometheus.GaugeValue, boolValue(ds.Status.Phase == p), ns, name, string(p))
	}
	for _, f := range cacheFigures {
		if v, ok := f.parse(ds.Status.CacheStates[f.state]); ok {
			ch <- prometheus.MustNewConstMetric(f.desc, prometheus.GaugeValue, v, ns, name)
		}
	}
	key := ns + "/" + name
	if v, ok := engines.ParseBytes(ds.Status.UfsTotal); ok {
		ch <- prometheus.MustNewConstMetric(ufsTotalBytes, prometheus.GaugeValue, v, ns, name)
		ch <- prometheus.MustNewConstMetric(fluidUFSTotalSize, prometheus.GaugeValue, v, key)
	}
	if v, ok := engines.ParseCount(ds.Status.FileNum); ok {
		ch <- prometheus.MustNewConstMetric(ufsFiles, prometheus.GaugeValue, v, ns, name)
		ch <- prometheus.MustNewConstMetric(fluidUFSFileNum, prometheus.GaugeValue, v, key)
	}
}

// collectRuntime exports one runtime of the kind typ: Ready, the ready and
// desired replicas of each component its status reports (a component the
// engine does not run has no phase, and no series), and its failure
// counts.
func collectRuntime(ch chan<- prometheus.Metric, typ string, rt datav1alpha1.RuntimeObject, failed failureCounts) {
	ns, name, st := rt.GetNamespace(), rt.GetName(), rt.GetRuntimeStatus()
	ch <- prometheus.MustNewConstMetric(runtimeReady, prometheus.GaugeValue, boolValue(meta.IsStatusConditionTrue(st.Conditions, cacheruntime.ConditionReady)), ns, name, typ)
	for _, c := range []struct {
		component      string
		phase          datav1alpha1.RuntimePhase
		ready, desired int32
	}{
		{"master", st.MasterPhase, st.MasterNumberReady, st.DesiredMasterNumberScheduled},
		{"worker", st.WorkerPhase, st.WorkerNumberReady, st.DesiredWorkerNumberScheduled},
		{"fuse", st.FusePhase, st.FuseNumberReady, st.DesiredFuseNumberScheduled},
	} {
		if c.phase == datav1alpha1.RuntimePhaseNone {
			continue
		}
		ch <- prometheus.MustNewConstMetric(readyReplicas, prometheus.GaugeValue, float64(c.ready), ns, name, typ, c.component)
		ch <- prometheus.MustNewConstMetric(desiredReplicas, prometheus.GaugeValue, float64(c.desired), ns, name, typ, c.component)
	}
	key := ns + "/" + name
	ch <- prometheus.MustNewConstMetric(fluidSetupErrors, prometheus.CounterValue, failed.setup, typ, key)
	ch <- prometheus.MustNewConstMetric(fluidHealthCheckErrors, prometheus.CounterValue, failed.healthCheck, typ, key)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

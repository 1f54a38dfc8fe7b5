package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// Names of the data operations' metrics (docs/monitoring.md; the chart's
// alerts and dashboard read them).
const (
	OperationsRunningName   = "sluice_data_operations_running"
	OperationsCompletedName = "sluice_data_operations_completed_total"
	OperationsFailedName    = "sluice_data_operations_failed_total"
	OperationDurationName   = "sluice_data_operation_duration_seconds"
)

// operationDurationBuckets span a metadata sync of seconds to a full load or
// migration of a day.
var operationDurationBuckets = []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400}

// Operations counts the data operations that ended, by kind (DataLoad,
// DataMigrate, DataBackup, DataProcess): completed and failed counters
// and a histogram of how long each ran (label phase: Complete or Failed).
// A Cron operation counts each run. The operation reconcilers record
// (operation.Reconciler.Ends); the counters and histograms start at 0 for
// every kind, so that increase() sees the first failure and the dashboard's
// panels have series before one. Running operations are the
// Collector's (sluice_data_operations_running, read from the cache).
type Operations struct {
	completed, failed *prometheus.CounterVec
	duration          *prometheus.HistogramVec
}

// NewOperations returns the counters, every kind at 0.
func NewOperations() *Operations {
	o := &Operations{
		completed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: OperationsCompletedName,
			Help: "Data operations (for Cron: runs) that completed, by kind."}, []string{"kind"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: OperationsFailedName,
			Help: "Data operations (for Cron: runs) that failed, by kind."}, []string{"kind"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: OperationDurationName,
			Help:    "How long data operations (for Cron: runs) ran until they completed or failed, by kind and phase.",
			Buckets: operationDurationBuckets}, []string{"kind", "phase"}),
	}
	for _, k := range datav1alpha1.OperationKinds() {
		o.completed.WithLabelValues(string(k))
		o.failed.WithLabelValues(string(k))
		o.duration.WithLabelValues(string(k), string(datav1alpha1.PhaseComplete))
		o.duration.WithLabelValues(string(k), string(datav1alpha1.PhaseFailed))
	}
	return o
}

// Collectors are the metrics to register.
func (o *Operations) Collectors() []prometheus.Collector {
	return []prometheus.Collector{o.completed, o.failed, o.duration}
}

// Ended records an operation of kind that reached phase (Complete or
// Failed; others are ignored) after running took.
func (o *Operations) Ended(kind string, phase datav1alpha1.Phase, took time.Duration) {
	switch phase {
	case datav1alpha1.PhaseComplete:
		o.completed.WithLabelValues(kind).Inc()
	case datav1alpha1.PhaseFailed:
		o.failed.WithLabelValues(kind).Inc()
	default:
		return
	}
	o.duration.WithLabelValues(kind, string(phase)).Observe(took.Seconds())
}

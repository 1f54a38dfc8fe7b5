package metrics

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// RuntimeKind is a runtime kind whose objects the Collector exports.
type RuntimeKind struct {
	// Type is the runtime_type label: the kind in lower case
	// ("juicefsruntime").
	Type string
	// NewList returns an empty list of the kind.
	NewList func() client.ObjectList
}

// Collector is a prometheus.Collector of the Datasets' and runtimes'
// metrics. Each scrape lists the objects from Reader (the manager's
// informer cache, which the reconcilers keep anyway: no API request) and
// exports what their status holds, so a series lives exactly as long as its
// object, and an object has a bounded number of series (labels: namespace,
// name, runtime type; a phase or component where named).
type Collector struct {
	// Reader lists Datasets and runtimes: the manager's cache.
	Reader client.Reader
	// Kinds are the runtime kinds to export.
	Kinds []RuntimeKind
	// OperationKinds are the data-operation kinds whose executing
	// operations sluice_data_operations_running counts.
	OperationKinds []datav1alpha1.OperationKind
	// Elected is closed once this replica leads (manager.Elected). Until
	// then nothing is exported: the leader's figures are the ones that
	// count, and a replica on standby has no informers of these kinds.
	Elected <-chan struct{}
	// Failures are the runtimes' failed reconciles; nil exports zeros.
	Failures *Failures
	// Log reports lists that failed (the scrape then lacks their series).
	Log logr.Logger
}

// listTimeout bounds the lists of one scrape (they wait while an informer
// syncs).
const listTimeout = 10 * time.Second

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs() {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	select {
	case <-c.Elected:
	default:
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	datasets := &datav1alpha1.DatasetList{}
	if err := c.Reader.List(ctx, datasets, client.UnsafeDisableDeepCopy); err != nil {
		c.Log.Error(err, "listing Datasets for their metrics")
	} else {
		for i := range datasets.Items {
			collectDataset(ch, &datasets.Items[i])
		}
	}
	live, complete := map[types.UID]bool{}, true
	for _, k := range c.Kinds {
		list := k.NewList()
		if err := c.Reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			c.Log.Error(err, "listing runtimes for their metrics", "kind", k.Type)
			complete = false
			continue
		}
		_ = meta.EachListItem(list, func(o runtime.Object) error {
			if rt, ok := o.(datav1alpha1.RuntimeObject); ok {
				live[rt.GetUID()] = true
				collectRuntime(ch, k.Type, rt, c.Failures.counts(rt.GetUID()))
			}
			return nil
		})
	}
	if complete {
		c.Failures.keep(live)
	}
	for _, k := range c.OperationKinds {
		c.collectRunning(ctx, ch, k)
	}
}

// collectRunning exports how many operations of kind are executing (phase
// Executing; for Cron: a run executes).
func (c *Collector) collectRunning(ctx context.Context, ch chan<- prometheus.Metric, kind datav1alpha1.OperationKind) {
	list, ok := datav1alpha1.NewOperationList(string(kind))
	if !ok {
		c.Log.Error(nil, "no such data-operation kind", "kind", kind)
		return
	}
	if err := c.Reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		c.Log.Error(err, "listing data operations for their metrics", "kind", kind)
		return
	}
	running := 0
	for _, op := range list.GetOperations() {
		if op.GetOperationStatus().Phase == datav1alpha1.PhaseExecuting {
			running++
		}
	}
	ch <- prometheus.MustNewConstMetric(operationsRunning, prometheus.GaugeValue, float64(running), string(kind))
}

package scale_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// queuedDatasets is how many Datasets the queued DataLoads share.
const queuedDatasets = 50

// BenchmarkQueuedDataLoads applies 50 Datasets, each with a one-worker
// JuiceFSRuntime (Shared placement) and a chain of DataLoads of it, each
// but the first runAfter the one before, all at once, to a fresh
// simulated cluster of 50 nodes (as BenchmarkDataLoadsToComplete), and
// measures the time until every DataLoad is Complete. The DataLoads of one
// Dataset queue twice over: one data operation of a kind runs on a Dataset
// at a time, and each waits for its runAfter. The run fails unless every
// chain held: no DataLoad's release was installed before the one it runs
// after had completed. 200 DataLoads (4 a Dataset) by default; 1,000 (20
// a Dataset, the figure) with SLUICE_BENCH_LARGE set.
func BenchmarkQueuedDataLoads(b *testing.B) {
	n := 200
	if os.Getenv("SLUICE_BENCH_LARGE") != "" {
		n = 1000
	}
	b.Run(fmt.Sprintf("dataloads=%d/datasets=%d", n, queuedDatasets), func(b *testing.B) {
		for range b.N {
			m := runLoads(b, n, func(ctx context.Context, c client.Client, ns string) error {
				return applyChains(ctx, c, ns, queuedDatasets, n/queuedDatasets)
			}, chainsHeld)
			b.ReportMetric(m.elapsed.Seconds(), "s-to-complete")
			b.ReportMetric(float64(n)/m.elapsed.Seconds(), "dataloads/s")
			b.ReportMetric(float64(m.peakRSS)/(1<<20), "peak-RSS-MiB")
			b.ReportMetric(m.controllerRequests/float64(n), "controller-requests/dataload")
			b.ReportMetric(m.apiServerRequests/float64(n), "apiserver-requests/dataload")
			b.ReportMetric(float64(m.controllerCPU.Milliseconds())/float64(n), "controller-cpu-ms/dataload")
		}
	})
}

// applyChains creates datasets Datasets with one-worker JuiceFS runtimes
// (Shared placement) and perDataset DataLoads of each, chained by
// runAfter, from a few goroutines; the DataLoads of a chain are created
// last first, so that each waits for a predecessor not yet created too.
func applyChains(ctx context.Context, c client.Client, ns string, datasets, perDataset int) error {
	return createEach(ctx, c, datasets, func(i int) []client.Object {
		objs, name := sharedJuiceFS(ns, i), datasetName(i)
		for j := perDataset - 1; j >= 0; j-- {
			dl := testobj.DataLoad(chainLink(name, j), ns, name)
			if j > 0 {
				dl.Spec.RunAfter = &datav1alpha1.OperationRef{ObjectRef: datav1alpha1.ObjectRef{
					Kind: datav1alpha1.DataLoadKind, Name: chainLink(name, j-1)}}
			}
			objs = append(objs, dl)
		}
		return objs
	})
}

func chainLink(dataset string, j int) string { return fmt.Sprintf("%s-load-%02d", dataset, j) }

// chainsHeld checks that no DataLoad's release was installed before the
// DataLoad it runs after completed (the ReleaseInstalled condition's time,
// which stays while it is true, against the Complete one's; condition
// times are whole seconds, so equal times pass).
func chainsHeld(loads []datav1alpha1.DataLoad) error {
	byName := map[string]*datav1alpha1.DataLoad{}
	for i := range loads {
		byName[loads[i].Name] = &loads[i]
	}
	chained := 0
	for _, dl := range loads {
		if dl.Spec.RunAfter == nil {
			continue
		}
		before, ok := byName[dl.Spec.RunAfter.Name]
		if !ok {
			return fmt.Errorf("DataLoad %s runs after %s, which is missing", dl.Name, dl.Spec.RunAfter.Name)
		}
		done := meta.FindStatusCondition(before.Status.Conditions, operation.ConditionComplete)
		started := meta.FindStatusCondition(dl.Status.Conditions, operation.ConditionReleaseInstalled)
		if done == nil || started == nil || started.Status != metav1.ConditionTrue {
			return fmt.Errorf("DataLoad %s has no %s condition, or %s no true %s condition (%+v)",
				before.Name, operation.ConditionComplete, dl.Name, operation.ConditionReleaseInstalled, started)
		}
		if started.LastTransitionTime.Before(&done.LastTransitionTime) {
			return fmt.Errorf("DataLoad %s started at %s, before %s, which it runs after, completed at %s",
				dl.Name, started.LastTransitionTime.Format(time.RFC3339), before.Name, done.LastTransitionTime.Format(time.RFC3339))
		}
		chained++
	}
	if want := len(loads) - queuedDatasets; chained != want {
		return fmt.Errorf("%d DataLoads ran after another, want %d", chained, want)
	}
	return nil
}

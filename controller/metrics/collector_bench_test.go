package metrics

import (
	"context"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// listReader lists fixed objects the way the informer cache does with
// UnsafeDisableDeepCopy (the objects are copied into the list, their
// contents shared), so that the benchmark measures the collector, not a
// fake client's conversions.
type listReader struct {
	client.Reader
	datasets []datav1alpha1.Dataset
	runtimes []datav1alpha1.JuiceFSRuntime
}

func (r listReader) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	switch l := list.(type) {
	case *datav1alpha1.DatasetList:
		l.Items = append(l.Items[:0], r.datasets...)
	case *datav1alpha1.JuiceFSRuntimeList:
		l.Items = append(l.Items[:0], r.runtimes...)
	}
	return nil
}

// BenchmarkGather1000: one scrape of the registry with 1,000 bound
// Datasets and their runtimes (about 16 series each).
func BenchmarkGather1000(b *testing.B) {
	r := listReader{}
	for i := range 1000 {
		ds, rt := boundDataset(), readyRuntime()
		ds.Name, rt.Name = fmt.Sprintf("ds-%04d", i), fmt.Sprintf("ds-%04d", i)
		ds.UID, rt.UID = types.UID("ds-"+ds.Name), types.UID("rt-"+rt.Name)
		r.datasets, r.runtimes = append(r.datasets, *ds), append(r.runtimes, *rt)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(&Collector{Reader: r, Kinds: []RuntimeKind{juicefsKind}, Elected: elected(), Failures: &Failures{}})
	b.ReportAllocs()
	series := 0
	for b.Loop() {
		fams, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		series = 0
		for _, f := range fams {
			series += len(f.GetMetric())
		}
	}
	b.ReportMetric(float64(series), "series")
}

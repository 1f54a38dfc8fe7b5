package chaos_test

import (
	"fmt"
	"sort"
)

// wantDataset is what the workload last asked of one Dataset.
type wantDataset struct {
	// live: created and not deleted.
	live bool
	// replicas is the runtime's spec.replicas.
	replicas int32
	// bufferSize is the runtime's worker option buffer-size, which the
	// worker's command carries.
	bufferSize string
	// loads are the Dataset's DataLoads (deleted with it).
	loads []string
}

// model is the state the workload asked for: every Dataset it ever
// created, in one namespace.
type model struct {
	ns       string
	datasets map[string]*wantDataset
}

func newModel(ns string) *model { return &model{ns: ns, datasets: map[string]*wantDataset{}} }

// names are the modelled Datasets' names, sorted; live selects the live or
// the deleted ones.
func (m *model) names(live bool) []string {
	var out []string
	for name, d := range m.datasets {
		if d.live == live {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// datasetName is the i-th Dataset's name (and its runtime's).
func datasetName(i int) string { return fmt.Sprintf("ds-%02d", i) }

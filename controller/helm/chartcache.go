package helm

import (
	"io/fs"
	"reflect"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
)

// ChartCache loads each chart once, keyed by the file system it is read
// from (the embedded charts are package variables, so the same chart comes
// in the same fs.FS), and hands the same chart to every caller (installs
// only read it). A file system that cannot be a map key is loaded on every
// call. The zero value is ready to use.
type ChartCache struct {
	mu     sync.Mutex
	charts map[fs.FS]*chart.Chart
}

// Load returns the chart in fsys.
func (c *ChartCache) Load(fsys fs.FS) (*chart.Chart, error) {
	if fsys == nil || !reflect.TypeOf(fsys).Comparable() {
		return LoadChart(fsys)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.charts[fsys]; ok {
		return ch, nil
	}
	ch, err := LoadChart(fsys)
	if err != nil {
		return nil, err
	}
	if c.charts == nil {
		c.charts = map[fs.FS]*chart.Chart{}
	}
	c.charts[fsys] = ch
	return ch, nil
}

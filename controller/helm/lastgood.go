package helm

import (
	"sync"
)

// A rollback restores a release's last good revision. Helm's own rollback
// applies the manifest stored with that revision, and its chart and values
// are stored beside it: all in a Secret of the release's namespace, which
// that namespace's users may be allowed to edit (stored.go), and which no
// post-renderer or admission rule judges again. So a rollback here applies
// nothing stored: it upgrades the release to the chart and values this
// controller process last deployed, or found deployed, for it, kept in
// memory (lastGood), rendered afresh through the guard like any install
// or upgrade. A process that has none (it started after the release's last
// good revision, or never saw it deployed) does not roll back: what it
// would restore could have been forged (Client.Ensure).

// lastGood is, per release, the chart and values this process last
// deployed, or found deployed, for it: what a rollback restores. Shared by
// the copies knowing makes; a nil *lastGood remembers nothing.
type lastGood struct {
	mu sync.Mutex
	by map[string]Desired
}

// remember notes that the release deployed d (a copy of its values).
func (g *lastGood) remember(name string, d Desired) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.by == nil {
		g.by = map[string]Desired{}
	}
	d.Values = copyValues(d.Values)
	g.by[name] = d
}

// get returns what the release last deployed, if this process knows it.
func (g *lastGood) get(name string) (Desired, bool) {
	if g == nil {
		return Desired{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	d, ok := g.by[name]
	if ok {
		d.Values = copyValues(d.Values)
	}
	return d, ok
}

// forget drops what is known of a release that was uninstalled.
func (g *lastGood) forget(name string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.by, name)
}

// copyValues copies values deeply (maps and lists; the leaves are
// immutable), keeping their types, so that a caller changing its map
// afterwards does not change what a rollback restores.
func copyValues(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return copyValues(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}

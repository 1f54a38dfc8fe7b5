package fieldtables

import (
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/alluxio"
	"github.com/sluice-data/sluice/engines/jindo"
	"github.com/sluice-data/sluice/engines/juicefs"
	"github.com/sluice-data/sluice/engines/thin"
)

// Table is one kind's field table.
type Table struct {
	Kind   string
	Fields engines.Fields
}

// All are the field tables, in the order docs/engines.md shows them.
var All = []Table{
	{"JuiceFSRuntime", juicefs.Fields},
	{"AlluxioRuntime", alluxio.Fields},
	{"JindoRuntime", jindo.Fields},
	{"ThinRuntime", thin.Fields},
	{"ThinRuntimeProfile", thin.ProfileFields},
}

// ForKind returns the field table of kind; false for a kind without one.
func ForKind(kind string) (engines.Fields, bool) {
	for _, t := range All {
		if t.Kind == kind {
			return t.Fields, true
		}
	}
	return nil, false
}

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
	// Dataset are the fields of a Dataset served by a runtime of this
	// kind that its engine refuses.
	Dataset engines.Fields
	// Mounts refuses the changes of a bound Dataset's mounts that the
	// engine cannot apply; nil when it applies every change.
	Mounts engines.MountChecker
}

// All are the field tables, in the order docs/engines.md shows them.
var All = []Table{
	{"JuiceFSRuntime", juicefs.Fields, juicefs.DatasetFields, juicefs.Engine{}},
	{"AlluxioRuntime", alluxio.Fields, alluxio.DatasetFields, alluxio.Engine{}},
	{"JindoRuntime", jindo.Fields, jindo.DatasetFields, nil},
	{"ThinRuntime", thin.Fields, thin.DatasetFields, nil},
	{"ThinRuntimeProfile", thin.ProfileFields, nil, nil},
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

// DatasetFieldsFor returns the Dataset field table of the engine serving
// runtimeKind; false for a kind without one.
func DatasetFieldsFor(runtimeKind string) (engines.Fields, bool) {
	for _, t := range All {
		if t.Kind == runtimeKind && t.Dataset != nil {
			return t.Dataset, true
		}
	}
	return nil, false
}

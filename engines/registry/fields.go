package registry

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
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

// All are the field tables, in the order docs/engines.md shows them: each
// registered engine's runtime kind, then ThinRuntimeProfile.
var All = func() []Table {
	var out []Table
	for _, r := range registered {
		eng := r.engine(Options{})
		kind, _ := datav1alpha1.RuntimeKindOfType(eng.Type())
		mounts, _ := eng.(engines.MountChecker)
		out = append(out, Table{Kind: kind.Kind, Fields: r.fields, Dataset: r.dataset, Mounts: mounts})
	}
	return append(out, Table{Kind: "ThinRuntimeProfile", Fields: thin.ProfileFields})
}()

// ForKind returns the field table of kind; false for a kind without one.
func ForKind(kind string) (engines.Fields, bool) {
	for _, t := range All {
		if t.Kind == kind {
			return t.Fields, true
		}
	}
	return nil, false
}

// FieldsOf returns the field table that judges obj, an object of kind:
// its kind's, except for a ThinRuntime without spec.profileName, which
// serves a reference dataset and none of whose fields acts
// (thin.ReferenceFields); false for a kind without one.
func FieldsOf(kind string, obj client.Object) (engines.Fields, bool) {
	if rt, ok := obj.(*datav1alpha1.ThinRuntime); ok && rt.Spec.ProfileName == "" {
		return thin.ReferenceFields, true
	}
	return ForKind(kind)
}

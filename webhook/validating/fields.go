package validating

import (
	"reflect"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/engines"
)

// FieldFact is a warned or refused field the object sets. Unchanged says
// an UPDATE that edits only the object's labels and annotations leaves it
// as the old object had it: the rule engine-field then warns instead of
// denying, so an object that an upgrade of Sluice (a field table that now
// refuses more) made invalid can still be labelled, while any change of
// its spec must fix the field. The engine refuses the field at reconcile
// either way (InvalidSpec).
type FieldFact struct {
	engines.Finding
	Unchanged bool `json:"unchanged,omitempty"`
}

// fieldsOf checks obj with check and, on an UPDATE of labels and
// annotations only, marks each finding that old had too.
func fieldsOf(obj, old client.Object, check func(any) []engines.Finding) []FieldFact {
	found := check(obj)
	if len(found) == 0 {
		return nil
	}
	var before []engines.Finding
	if old != nil && !reflect.ValueOf(old).IsNil() && labelsOnly(old, obj) {
		before = check(old)
	}
	out := make([]FieldFact, len(found))
	for i, f := range found {
		out[i] = FieldFact{Finding: f, Unchanged: slices.Contains(before, f)}
	}
	return out
}

// labelsOnly says whether an UPDATE changes the object's labels and
// annotations and nothing else (apart from what every write changes).
func labelsOnly(old, obj client.Object) bool {
	return equalApartFrom(old, obj, func(o client.Object) {
		o.SetLabels(nil)
		o.SetAnnotations(nil)
	})
}

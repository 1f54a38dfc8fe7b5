package registry_test

import (
	"reflect"
	"testing"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines/registry"
)

// TestDefaultServesEachKindOnce: each engine of Default serves the
// runtime kind the API records for its type, no two serve one kind, and
// each has its kind's field table.
func TestDefaultServesEachKindOnce(t *testing.T) {
	served := map[string]bool{}
	for _, eng := range registry.Default(registry.Options{SluiceImage: "sluice:test"}) {
		kind, ok := datav1alpha1.RuntimeKindOfType(eng.Type())
		if !ok {
			t.Errorf("engine %s: no runtime kind of its type", eng.Type())
			continue
		}
		want, _ := datav1alpha1.NewRuntime(kind.Kind)
		if reflect.TypeOf(eng.NewObject()) != reflect.TypeOf(want) {
			t.Errorf("engine %s serves %T, its type's kind is %s", eng.Type(), eng.NewObject(), kind.Kind)
		}
		if served[kind.Kind] {
			t.Errorf("two engines serve %s", kind.Kind)
		}
		served[kind.Kind] = true
		if _, ok := registry.ForKind(kind.Kind); !ok {
			t.Errorf("%s has no field table", kind.Kind)
		}
	}
	if len(served) == 0 {
		t.Fatal("Default has no engine")
	}
}

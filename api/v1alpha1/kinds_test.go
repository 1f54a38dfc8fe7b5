package v1alpha1

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// otherKinds are the registered kinds that are neither runtime kinds,
// data-operation kinds nor refused kinds.
var otherKinds = []string{"Dataset", "ThinRuntimeProfile"}

// TestSchemeKindsAreInTheTables: every kind the scheme registers that is
// a runtime kind (named *Runtime, or a RuntimeObject) or a data-operation
// kind (named Data* other than Dataset, or an OperationObject) is in its
// table, whose constructors make objects and lists of that kind, unless it
// is a kind Sluice serves but refuses (RefusedKinds), which is in neither
// table; every kind of the tables is registered; and every registered kind
// is in one of the tables, RefusedKinds or otherKinds. A new kind cannot be
// left out of NewRuntime, NewOperation and the code built on them, nor
// slip into them by its name when it is refused.
func TestSchemeKindsAreInTheTables(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	known := s.KnownTypes(GroupVersion)
	runtimeType := reflect.TypeFor[RuntimeObject]()
	operationType := reflect.TypeFor[OperationObject]()
	runtimes, operations, refused := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for kind, typ := range known {
		if strings.HasSuffix(kind, "List") || typ.PkgPath() != reflect.TypeFor[Dataset]().PkgPath() {
			continue
		}
		ptr := reflect.PointerTo(typ)
		if slices.Contains(RefusedKinds(), kind) {
			refused[kind] = true
			_, isRuntime := NewRuntime(kind)
			_, isOperation := NewOperation(kind)
			if isRuntime || isOperation || ptr.Implements(runtimeType) || ptr.Implements(operationType) {
				t.Errorf("%s is refused (refused_kinds.go) but is in a table, or implements RuntimeObject or OperationObject", kind)
			}
			if _, ok := known[kind+"List"]; !ok {
				t.Errorf("refused kind %s has no %sList", kind, kind)
			}
			continue
		}
		if !slices.Contains(otherKinds, kind) && !strings.HasSuffix(kind, "Runtime") && !strings.HasPrefix(kind, "Data") &&
			!ptr.Implements(runtimeType) && !ptr.Implements(operationType) {
			t.Errorf("%s is in no table: add it to runtime_kinds.go, operation_object.go or refused_kinds.go, or to otherKinds here", kind)
		}
		if strings.HasSuffix(kind, "Runtime") || ptr.Implements(runtimeType) {
			runtimes[kind] = true
			obj, ok := NewRuntime(kind)
			if !ok {
				t.Errorf("%s is not in the table of runtime kinds (runtime_kinds.go)", kind)
				continue
			}
			if got := reflect.TypeOf(obj); got != ptr {
				t.Errorf("NewRuntime(%s) is a %v", kind, got)
			}
			list, ok := NewRuntimeList(kind)
			if got := reflect.TypeOf(list); !ok || got != reflect.PointerTo(known[kind+"List"]) {
				t.Errorf("NewRuntimeList(%s) is a %v", kind, got)
			}
		}
		if (strings.HasPrefix(kind, "Data") && kind != "Dataset") || ptr.Implements(operationType) {
			operations[kind] = true
			obj, ok := NewOperation(kind)
			if !ok {
				t.Errorf("%s is not in the table of operation kinds (operation_object.go)", kind)
				continue
			}
			if got := reflect.TypeOf(obj); got != ptr || string(obj.GetOperationKind()) != kind {
				t.Errorf("NewOperation(%s) is a %v of kind %s", kind, got, obj.GetOperationKind())
			}
			list, ok := NewOperationList(kind)
			if got := reflect.TypeOf(list); !ok || got != reflect.PointerTo(known[kind+"List"]) {
				t.Errorf("NewOperationList(%s) is a %v", kind, got)
			}
		}
	}
	types := map[string]bool{}
	for _, k := range RuntimeKinds() {
		if !runtimes[k.Kind] {
			t.Errorf("the table's runtime kind %s is not a registered runtime kind", k.Kind)
		}
		if k.Type == "" || types[k.Type] || strings.ToLower(k.Type)+"runtime" != strings.ToLower(k.Kind) {
			t.Errorf("%s's runtime type %q is empty, repeated or not its kind's name", k.Kind, k.Type)
		}
		types[k.Type] = true
		if got, ok := RuntimeKindOfType(k.Type); !ok || got != k {
			t.Errorf("RuntimeKindOfType(%s) = %v, %v", k.Type, got, ok)
		}
	}
	if !slices.IsSortedFunc(RuntimeKinds(), func(a, b RuntimeKind) int { return strings.Compare(a.Kind, b.Kind) }) {
		t.Errorf("RuntimeKinds() are not sorted by kind: %v", RuntimeKinds())
	}
	if len(RuntimeKinds()) != len(runtimes) {
		t.Errorf("the table lists %d runtime kinds, the scheme %d", len(RuntimeKinds()), len(runtimes))
	}
	for _, k := range OperationKinds() {
		if !operations[string(k)] {
			t.Errorf("the table's operation kind %s is not a registered operation kind", k)
		}
	}
	if len(OperationKinds()) != len(operations) {
		t.Errorf("the table lists %d operation kinds, the scheme %d", len(OperationKinds()), len(operations))
	}
	for _, k := range RefusedKinds() {
		if !refused[k] {
			t.Errorf("the refused kind %s is not registered", k)
		}
	}
	if !slices.IsSorted(RefusedKinds()) {
		t.Errorf("RefusedKinds() are not sorted: %v", RefusedKinds())
	}
	for _, k := range otherKinds {
		if known[k] == nil {
			t.Errorf("%s of otherKinds is not registered", k)
		}
	}
}

// TestRefusedMessageNamesTheRuntimes: the refusal names the runtime kinds
// Sluice does run, as a sentence.
func TestRefusedMessageNamesTheRuntimes(t *testing.T) {
	want := "EFCRuntime is not supported by Sluice yet: Sluice runs AlluxioRuntime, JindoRuntime, JuiceFSRuntime and ThinRuntime (docs/compatibility.md)"
	if got := RefusedMessage("EFCRuntime"); got != want {
		t.Errorf("RefusedMessage(EFCRuntime) = %q, want %q", got, want)
	}
}

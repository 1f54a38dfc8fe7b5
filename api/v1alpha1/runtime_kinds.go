package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RuntimeKind names one runtime kind: its Kind, e.g. AlluxioRuntime, and
// its Type, the runtime type a Dataset's status.runtimes records for it,
// e.g. alluxio.
// +kubebuilder:object:generate=false
type RuntimeKind struct {
	Kind string
	Type string
}

// runtimeKinds is the one table of the runtime kinds: a new runtime kind is
// added here (TestSchemeKindsAreInTheTables fails until it is).
var runtimeKinds = []struct {
	RuntimeKind
	new     func() RuntimeObject
	newList func() RuntimeList
}{
	{RuntimeKind{"AlluxioRuntime", "alluxio"}, func() RuntimeObject { return &AlluxioRuntime{} }, func() RuntimeList { return &AlluxioRuntimeList{} }},
	{RuntimeKind{"JindoRuntime", "jindo"}, func() RuntimeObject { return &JindoRuntime{} }, func() RuntimeList { return &JindoRuntimeList{} }},
	{RuntimeKind{"JuiceFSRuntime", "juicefs"}, func() RuntimeObject { return &JuiceFSRuntime{} }, func() RuntimeList { return &JuiceFSRuntimeList{} }},
	{RuntimeKind{"ThinRuntime", "thin"}, func() RuntimeObject { return &ThinRuntime{} }, func() RuntimeList { return &ThinRuntimeList{} }},
}

// RuntimeKinds returns every runtime kind, sorted by Kind.
func RuntimeKinds() []RuntimeKind {
	out := make([]RuntimeKind, len(runtimeKinds))
	for i, k := range runtimeKinds {
		out[i] = k.RuntimeKind
	}
	return out
}

// RuntimeKindOfType returns the runtime kind of a runtime type, as a
// Dataset's status.runtimes records it (alluxio, ...); ok is false for any
// other type.
func RuntimeKindOfType(typ string) (kind RuntimeKind, ok bool) {
	for _, k := range runtimeKinds {
		if k.Type == typ {
			return k.RuntimeKind, true
		}
	}
	return RuntimeKind{}, false
}

// NewRuntime returns a new, empty object of the named runtime kind
// (AlluxioRuntime, ...); ok is false for any other kind.
func NewRuntime(kind string) (obj RuntimeObject, ok bool) {
	for _, k := range runtimeKinds {
		if k.Kind == kind {
			return k.new(), true
		}
	}
	return nil, false
}

// RuntimeList is a list of one runtime kind.
// +kubebuilder:object:generate=false
type RuntimeList interface {
	metav1.ListInterface
	runtime.Object
	// GetRuntimes returns the items.
	GetRuntimes() []RuntimeObject
}

// NewRuntimeList returns a new, empty list of the named runtime kind; ok
// is false for any other kind.
func NewRuntimeList(kind string) (list RuntimeList, ok bool) {
	for _, k := range runtimeKinds {
		if k.Kind == kind {
			return k.newList(), true
		}
	}
	return nil, false
}

// GetRuntimes implements RuntimeList.
func (l *AlluxioRuntimeList) GetRuntimes() []RuntimeObject { return runtimeItems(l.Items) }

// GetRuntimes implements RuntimeList.
func (l *JindoRuntimeList) GetRuntimes() []RuntimeObject { return runtimeItems(l.Items) }

// GetRuntimes implements RuntimeList.
func (l *JuiceFSRuntimeList) GetRuntimes() []RuntimeObject { return runtimeItems(l.Items) }

// GetRuntimes implements RuntimeList.
func (l *ThinRuntimeList) GetRuntimes() []RuntimeObject { return runtimeItems(l.Items) }

// runtimeItems points at each element of a list's items.
func runtimeItems[T any, P interface {
	*T
	RuntimeObject
}](list []T) []RuntimeObject {
	out := make([]RuntimeObject, len(list))
	for i := range list {
		out[i] = P(&list[i])
	}
	return out
}

package v1alpha1

import "strings"

// refusedKinds are the kinds of Fluid's API that Sluice serves, with
// Fluid's schema, but does not run: so that `kubectl get` and Fluid's tools
// find them, and so that applying one fails naming why instead of "no
// matches for kind". Each kind's CRD carries one rule (the
// +kubebuilder:validation:XValidation marker on the kind) that refuses
// every create, and every change of the object's fields, with
// RefusedMessage, whether or not Sluice's webhook runs; an object that
// exists anyway (stored under Fluid's CRDs before Sluice's replaced them)
// can still be read, relabelled and deleted. No controller watches them.
// A new kind is either in the tables of runtime_kinds.go and
// operation_object.go, or here (TestSchemeKindsAreInTheTables).
var refusedKinds = []string{"CacheRuntime", "CacheRuntimeClass", "EFCRuntime", "VineyardRuntime"}

// RefusedKinds returns the kinds Sluice serves but refuses, sorted.
func RefusedKinds() []string { return append([]string(nil), refusedKinds...) }

// RefusedMessage is the message the CRD of a refused kind answers a create
// or a change with. The kind's marker spells it out (a marker cannot name a
// Go constant); tests/crd checks that the generated CRD says exactly this,
// so a new runtime kind fails that test until the markers name it.
func RefusedMessage(kind string) string {
	var names []string
	for _, k := range RuntimeKinds() {
		names = append(names, k.Kind)
	}
	last := len(names) - 1
	return kind + " is not supported by Sluice yet: Sluice runs " +
		strings.Join(names[:last], ", ") + " and " + names[last] + " (docs/compatibility.md)"
}

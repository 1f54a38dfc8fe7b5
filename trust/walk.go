package trust

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// apiPkg is the package whose structs the walk descends into; a type of
// another package (corev1.Volume, resource.Quantity) is one field.
var apiPkg = reflect.TypeFor[datav1alpha1.Dataset]().PkgPath()

// Kinds are the kinds of data.fluid.io/v1alpha1 the scheme serves (list
// kinds left out), each with the Go type of its object.
func Kinds() map[string]reflect.Type { return kinds() }

var kinds = sync.OnceValue(func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for gvk, t := range scheme.New().AllKnownTypes() {
		if gvk.GroupVersion() != datav1alpha1.GroupVersion || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		out[gvk.Kind] = t
	}
	return out
})

// KindNames are the names of Kinds, sorted.
func KindNames() []string {
	var out []string
	for k := range Kinds() {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Paths are the field paths of an object of type t: every field under
// spec, in field-table syntax ("[]" for each element of a list of
// api/v1alpha1 structs), stopping at types of other packages, maps and
// lists of anything else; and status as one field (the controller's).
func Paths(t reflect.Type) []string {
	var out []string
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if f, ok := t.FieldByName("Spec"); ok {
		walk(f.Type, "spec", &out)
	}
	if _, ok := t.FieldByName("Status"); ok {
		out = append(out, "status")
	}
	return out
}

func walk(t reflect.Type, prefix string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice {
		e := t.Elem()
		for e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		if e.Kind() == reflect.Struct && e.PkgPath() == apiPkg {
			walk(e, prefix+"[]", out)
			return
		}
		*out = append(*out, prefix)
		return
	}
	if t.Kind() != reflect.Struct || t.PkgPath() != apiPkg {
		*out = append(*out, prefix)
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			walk(f.Type, prefix, out)
			continue
		}
		walk(f.Type, prefix+"."+tag, out)
	}
}

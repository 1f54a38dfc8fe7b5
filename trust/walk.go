package trust

import (
	"reflect"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/internal/lazy"
)

// apiPkg is the package whose structs the walk descends into; a type of
// another package (corev1.Volume, resource.Quantity) is one field.
var apiPkg = reflect.TypeFor[datav1alpha1.Dataset]().PkgPath()

// Kinds are the kinds of data.fluid.io/v1alpha1 the scheme serves, each
// with the Go type of its object: list kinds, and the option kinds
// (ListOptions, ...) the scheme registers in every group, are left out.
func Kinds() map[string]reflect.Type { return kinds() }

var kinds = lazy.Value("trust: kinds", func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for gvk, t := range scheme.New().AllKnownTypes() {
		if gvk.GroupVersion() != datav1alpha1.GroupVersion || strings.HasSuffix(gvk.Kind, "List") || t.PkgPath() != apiPkg {
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
// spec, or at the top of a kind without one (CacheRuntimeClass), in
// field-table syntax ("[]" for each element of a list of api/v1alpha1
// structs), stopping at types of other packages, maps and lists of anything
// else; and status as one field (the controller's). apiVersion, kind and
// metadata are left out.
func Paths(t reflect.Type) []string {
	var out []string
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous || tag == "-" || tag == "metadata" || !f.IsExported():
		case tag == "status":
			out = append(out, "status")
		default:
			walk(f.Type, tag, &out)
		}
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

package trust

import (
	"maps"
	"slices"

	"encoding/json"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/internal/lazy"
)

// Value is a value of a namespace user's object that the
// privileged-container rule judges: one set field of a RulePrivileged row,
// or one element of an Each row's list.
type Value struct {
	// Path is the concrete field path (spec.fuse.jvmOptions[1]).
	Path string `json:"path"`
	// Field is the row's path (spec.fuse.jvmOptions), which the platform's
	// validating.guards.privilegedFields may list to admit it.
	Field string `json:"field"`
	// Container is the container the value reaches.
	Container string `json:"container"`
	// Value is the element of an Each row, or the field's value as JSON
	// (so that an UPDATE that changes it is judged again).
	Value string `json:"value"`
	// List names the policy data list of allowed patterns for an Each
	// row's element; "" for a field judged as a whole.
	List string `json:"list,omitempty"`
}

// Privileged lists the values obj, an object of a data.fluid.io kind,
// sets in fields that reach a container with host privileges (rows of
// RulePrivileged), in the order of the kind's fields; a host-network
// row's values only while its container is on the host network.
func Privileged(obj any) []Value {
	t := reflect.TypeOf(obj)
	if t == nil || t.Kind() != reflect.Pointer {
		return nil
	}
	var out []Value
	for _, f := range privilegedFields()[t.Elem().Name()] {
		if !onHost(obj, f.row.Host) {
			continue
		}
		for _, set := range engines.SetAt(obj, f.path) {
			out = append(out, values(f.path, f.row.Host, set)...)
		}
	}
	return out
}

type privilegedField struct {
	path string
	row  Row
}

// privilegedFields are, per kind, the fields RulePrivileged judges.
var privilegedFields = lazy.Value("trust: privileged fields", func() map[string][]privilegedField {
	out := map[string][]privilegedField{}
	for kind, paths := range AllFields() {
		for _, p := range paths {
			if row, ok := Classify(kind, p); ok && row.Rule == RulePrivileged && row.Host != nil {
				out[kind] = append(out[kind], privilegedField{path: p, row: row})
			}
		}
	}
	return out
})

// onHost says whether h's container has host privileges in obj.
func onHost(obj any, h *Host) bool {
	if h.NetworkAt == "" {
		return true
	}
	mode := ""
	if set := engines.SetAt(obj, h.NetworkAt); len(set) > 0 {
		mode = fmt.Sprint(set[0].Value)
	}
	switch datav1alpha1.NetworkMode(mode) {
	case datav1alpha1.HostNetworkMode:
		return true
	case datav1alpha1.ContainerNetworkMode:
		return false
	}
	return h.HostByDefault
}

func values(field string, h *Host, set engines.SetValue) []Value {
	if h.Each != "" {
		if elems, ok := elements(set); ok {
			out := make([]Value, len(elems))
			for i, e := range elems {
				out[i] = Value{Path: e.Path, Field: field, Container: h.Container, Value: fmt.Sprint(e.Value), List: h.Each}
			}
			return out
		}
	}
	raw, err := json.Marshal(set.Value)
	if err != nil {
		raw = []byte(fmt.Sprint(set.Value))
	}
	return []Value{{Path: set.Path, Field: field, Container: h.Container, Value: string(raw)}}
}

// elements are what an Each row judges of a set value: each string of a
// list (JVM options, arguments), each variable's name of an environment
// (a list of EnvVar, or a map of name to value).
func elements(set engines.SetValue) ([]engines.SetValue, bool) {
	var out []engines.SetValue
	switch v := set.Value.(type) {
	case []string:
		for i, e := range v {
			out = append(out, engines.SetValue{Path: fmt.Sprintf("%s[%d]", set.Path, i), Value: e})
		}
	case []corev1.EnvVar:
		for i, e := range v {
			out = append(out, engines.SetValue{Path: fmt.Sprintf("%s[%d]", set.Path, i), Value: e.Name})
		}
	case map[string]string:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			out = append(out, engines.SetValue{Path: set.Path + "." + name, Value: name})
		}
	default:
		return nil, false
	}
	return out, true
}

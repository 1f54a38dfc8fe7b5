package engines

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Support says what an engine does with a spec field.
type Support string

// The three answers a field table gives.
const (
	// Honoured: the field does what Fluid documents.
	Honoured Support = "honoured"
	// Warned: the field is accepted, with a warning that it acts only in
	// part or not at all.
	Warned Support = "warned"
	// Refused: a runtime that sets the field is refused, at admission and
	// at reconcile.
	Refused Support = "refused"
)

// Field is one row of an engine's field table.
type Field struct {
	// Path is the field's JSON path from the object's root, e.g.
	// spec.fuse.options. "[]" after a name stands for each element of a
	// list (spec.tieredstore.levels[].path); "[N]" for the element at
	// index N, a row that refines a "[]" or whole-list row (Jindo's
	// spec.tieredstore.levels[1]). A row covers the field and everything
	// under it.
	Path    string
	Support Support
	// Note says what an honoured field does, or why a warned or refused
	// one does not (the message the user reads after the field's path).
	Note string
	// ActsOutsideChart names where an honoured field acts when it is not
	// through the engine's chart (the controller, the CSI plugin):
	// e.g. "the controller's node labels". Such fields are exempt from the
	// test that setting a field changes the rendered chart.
	ActsOutsideChart string
	// Check, when set on an honoured field, refuses some of its values: it
	// gets the field's Go value (e.g. a map[string]string) and answers why
	// the value is refused, or "" (Jindo: credentials in plain properties).
	Check func(v any) string
	// Default, when set, is a value (as fmt.Sprint prints it) that counts
	// as unset: the CRD's default, which every stored object carries.
	Default string
}

// Fields is an engine's field table: every spec field of the runtime kind
// it serves, with what the engine does with it.
type Fields []Field

// Finding is a refused or warned field that an object sets.
type Finding struct {
	// Path is the field's concrete path, e.g. spec.master.volumeMounts or
	// spec.tieredstore.levels[1].
	Path    string  `json:"path"`
	Support Support `json:"support"`
	Message string  `json:"message"`
}

func (f Finding) String() string { return f.Path + ": " + f.Message }

// Lookup returns the row whose Path is path.
func (fs Fields) Lookup(path string) (Field, bool) {
	for _, f := range fs {
		if f.Path == path {
			return f, true
		}
	}
	return Field{}, false
}

// Check reports the refused and warned fields that obj (a runtime or
// profile: a pointer to a struct whose fields carry JSON tags) sets, each
// naming its path, in table order: a field is set unless it is a zero
// value (nil, "", 0, false, an empty list or map, a struct of zero values). Honoured fields with a Check
// are reported as refused when Check refuses their value.
func (fs Fields) Check(obj any) []Finding {
	u := reflect.ValueOf(obj)
	var out []Finding
	for _, f := range fs {
		if f.Support == Honoured && f.Check == nil {
			continue
		}
		for _, at := range lookup(u, "", splitPath(f.Path), f.Default) {
			switch {
			case f.Support != Honoured:
				out = append(out, Finding{Path: at.path, Support: f.Support, Message: f.Note})
			default:
				if msg := f.Check(at.value); msg != "" {
					out = append(out, Finding{Path: at.path, Support: Refused, Message: msg})
				}
			}
		}
	}
	return out
}

// Refuse is the reconcile-time half of Check: an Invalid error naming every
// refused field obj sets, nil when there is none. The webhook denies the
// same fields at admission; Refuse keeps a runtime admitted while the
// webhook was down from running without them.
func (fs Fields) Refuse(obj any) error {
	var msgs []string
	for _, f := range fs.Check(obj) {
		if f.Support == Refused {
			msgs = append(msgs, f.String())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return Invalid("%s", strings.Join(msgs, "; "))
}

// found is a set field: its concrete path and value.
type found struct {
	path  string
	value any
}

var segmentRE = regexp.MustCompile(`^([A-Za-z0-9_]+)(\[(\d*)\])?$`)

type segment struct {
	name  string
	list  bool // "[]" or "[N]"
	index int  // N, or -1 for each element
}

func splitPath(path string) []segment {
	var out []segment
	for _, s := range strings.Split(path, ".") {
		m := segmentRE.FindStringSubmatch(s)
		if m == nil {
			panic(fmt.Sprintf("engines: field path %q: segment %q is not name, name[] or name[N]", path, s))
		}
		seg := segment{name: m[1], list: m[2] != "", index: -1}
		if m[3] != "" {
			seg.index, _ = strconv.Atoi(m[3])
		}
		out = append(out, seg)
	}
	return out
}

// lookup finds the set values at the segments under v, a Go value whose
// fields are named by their JSON tags.
func lookup(v reflect.Value, prefix string, segs []segment, def string) []found {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		if len(segs) == 0 {
			break
		}
		v = v.Elem()
	}
	if len(segs) == 0 {
		if isZero(v) || (def != "" && fmt.Sprint(reflect.Indirect(v).Interface()) == def) {
			return nil
		}
		return []found{{path: prefix, value: v.Interface()}}
	}
	s := segs[0]
	name := s.name
	if prefix != "" {
		name = prefix + "." + name
	}
	child, ok := JSONField(v, s.name)
	if !ok {
		return nil
	}
	if !s.list {
		return lookup(child, name, segs[1:], def)
	}
	if child.Kind() != reflect.Slice {
		return nil
	}
	var out []found
	for i := range child.Len() {
		if s.index >= 0 && i != s.index {
			continue
		}
		out = append(out, lookup(child.Index(i), fmt.Sprintf("%s[%d]", name, i), segs[1:], def)...)
	}
	return out
}

// JSONField is the field of struct v whose JSON name is name, looking into
// inlined (embedded or ",inline") structs.
func JSONField(v reflect.Value, name string) (reflect.Value, bool) {
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			if fv, ok := JSONField(v.Field(i), name); ok {
				return fv, true
			}
			continue
		}
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// isZero: a nil pointer, an empty list or map, or a zero value; a pointer
// to an empty struct (emptyDir: {}) is set.
func isZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !isZero(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}

// HonouredField is a row for a field that does what Fluid documents,
// through the engine's chart; note says what it does.
func HonouredField(path, note string) Field {
	return Field{Path: path, Support: Honoured, Note: note}
}

// OutsideChartField is a row for an honoured field that acts outside the
// engine's chart, where says where (the controller, the CSI plugin).
func OutsideChartField(path, where, note string) Field {
	return Field{Path: path, Support: Honoured, Note: note, ActsOutsideChart: where}
}

// RefusedField is a row for a field the engine cannot honour: a runtime
// that sets it is refused with msg.
func RefusedField(path, msg string) Field {
	return Field{Path: path, Support: Refused, Note: msg}
}

// WarnedField is a row for a field the engine honours only in part, or
// not at all but harmlessly: a runtime that sets it is admitted with msg
// as a warning.
func WarnedField(path, msg string) Field {
	return Field{Path: path, Support: Warned, Note: msg}
}

// EmptyDirOnly is a Field.Check for a tier's volumeSource that an engine
// reads only the emptyDir of: any other volume source is refused.
func EmptyDirOnly(v any) string {
	vs, ok := v.(corev1.VolumeSource)
	if !ok {
		return ""
	}
	vs.EmptyDir = nil
	if isZero(reflect.ValueOf(vs)) {
		return ""
	}
	return "only an emptyDir volume source is read (its medium and sizeLimit); use volumeType hostPath or emptyDir for the others"
}

// CleanCachePolicyFields are the rows of a runtime's cleanCachePolicy
// (under spec.management, or spec for Jindo), which bounds the cache
// cleanup of its deletion (engines/workloads/cachecleanup): honoured by the
// controller for every engine, refusing values no Job could take.
func CleanCachePolicyFields(under string) []Field {
	const where = "the controller's cache cleanup on deletion, charts/cachecleanup"
	return []Field{
		{Path: under + ".cleanCachePolicy.gracePeriodSeconds", Support: Honoured, ActsOutsideChart: where, Check: atLeast(1),
			Note: "how long one cleanup attempt on a node may take (the cleanup pod's activeDeadlineSeconds); default 60"},
		{Path: under + ".cleanCachePolicy.maxRetryAttempts", Support: Honoured, ActsOutsideChart: where, Check: atLeast(0),
			Note: "how often a failed cleanup attempt is retried (the cleanup Job's backoffLimit) before the deletion goes on with a warning; default 3"},
	}
}

// atLeast is a Field.Check refusing an *int32 below least.
func atLeast(least int32) func(v any) string {
	return func(v any) string {
		if n, ok := v.(*int32); ok && n != nil && *n < least {
			return fmt.Sprintf("%d is below %d", *n, least)
		}
		return ""
	}
}

// SetValue is a value an object sets at a field: its concrete path (list
// elements numbered, spec.volumes[2]) and its Go value.
type SetValue struct {
	Path  string
	Value any
}

// SetAt returns the values obj (a pointer to a struct whose fields carry
// JSON tags) sets at path, a field table path ("[]" for each element of
// a list), in order; a zero value is not set.
func SetAt(obj any, path string) []SetValue {
	var out []SetValue
	for _, at := range lookup(reflect.ValueOf(obj), "", splitPath(path), "") {
		out = append(out, SetValue{Path: at.path, Value: at.value})
	}
	return out
}

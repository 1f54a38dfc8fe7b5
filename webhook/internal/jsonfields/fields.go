package jsonfields

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// Field is one member of the JSON object encoding/json writes for a
// struct.
type Field struct {
	// Name is the member's key: the tag's name, or the Go field's.
	Name string
	// Index is the field's index sequence in the struct, through embedded
	// structs (as for reflect.Value.FieldByIndex).
	Index []int
	// Type is the field's Go type.
	Type reflect.Type
	// OmitEmpty and OmitZero are the tag's omitempty and omitzero options.
	OmitEmpty, OmitZero bool
	// Quoted is the tag's string option on a field it applies to (a bool,
	// number or string, or a pointer to one): the value is written as a
	// JSON string holding its encoding.
	Quoted bool
	// Indirect is true when Index passes through an embedded pointer; the
	// field is not written when that pointer is nil.
	Indirect bool

	// omit is the field's omitempty and omitzero test; nil without either.
	omit func(reflect.Value) bool
}

// Value returns the field's value in v, a struct of the type the field was
// listed for, or false when an embedded pointer on its way is nil.
func (f *Field) Value(v reflect.Value) (reflect.Value, bool) {
	if !f.Indirect {
		return v.FieldByIndex(f.Index), true
	}
	for i, x := range f.Index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// Omitted reports whether encoding/json leaves out the field with value v:
// empty under omitempty, or zero under omitzero.
func (f *Field) Omitted(v reflect.Value) bool {
	return f.omit != nil && f.omit(v) // small enough to inline: it is on the hot path
}

// candidate is a field found while walking embedded structs, before the
// names that clash are resolved.
type candidate struct {
	Field
	tagged bool // named by its tag
}

// embedded is an embedded struct still to walk.
type embedded struct {
	typ      reflect.Type
	index    []int
	indirect bool
}

// Of returns the fields encoding/json writes for struct type t, in the
// order it writes them, by its rules: exported fields (and the exported
// fields of embedded structs, exported or not, promoted breadth first),
// "-" skipped, names from tags, and of fields with the same name the
// shallowest, then the tagged one, or none if that leaves several.
func Of(t reflect.Type) []Field {
	var found []candidate
	next := []embedded{{typ: t}}
	visited := map[reflect.Type]bool{}
	// count is how often each struct of this depth is embedded at the
	// depth above; nextCount the same for the next depth.
	var count, nextCount map[reflect.Type]int
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, e := range current {
			if visited[e.typ] {
				continue
			}
			visited[e.typ] = true
			for i := 0; i < e.typ.NumField(); i++ {
				sf := e.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validName(name) {
					name = ""
				}
				index := append(slices.Clip(e.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					nextCount[ft]++
					if nextCount[ft] == 1 {
						next = append(next, embedded{typ: ft, index: index, indirect: e.indirect || sf.Type.Kind() == reflect.Pointer})
					}
					continue
				}
				c := candidate{tagged: name != "", Field: Field{
					Name: name, Index: index, Type: sf.Type, Indirect: e.indirect,
					OmitEmpty: hasOption(opts, "omitempty"), OmitZero: hasOption(opts, "omitzero"),
					Quoted: hasOption(opts, "string") && quotable(ft.Kind()),
				}}
				c.omit = omitTest(c.OmitEmpty, c.OmitZero, sf.Type)
				if c.Name == "" {
					c.Name = sf.Name
				}
				found = append(found, c)
				if count[e.typ] > 1 {
					// The same struct embedded twice at this depth: its
					// fields clash with their copies and are dropped.
					found = append(found, c)
				}
			}
		}
	}
	return dominant(found)
}

// dominant keeps, of each set of candidates with one name, the one
// encoding/json writes (see Of), and returns the fields in index order.
func dominant(found []candidate) []Field {
	slices.SortFunc(found, func(a, b candidate) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Index), len(b.Index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Index, b.Index)
	})
	var out []Field
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].Name == found[i].Name {
			j++
		}
		same := found[i:j]
		i = j
		// same[0] is the shallowest, tagged first; a second as deep and as
		// tagged makes the name ambiguous.
		if len(same) > 1 && len(same[1].Index) == len(same[0].Index) && same[1].tagged == same[0].tagged {
			continue
		}
		out = append(out, same[0].Field)
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// quotable reports whether the string option applies to a field of kind k.
func quotable(k reflect.Kind) bool {
	switch k {
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.String:
		return true
	}
	return false
}

// validName is encoding/json's test of a tag's name; an invalid one is
// ignored, as if the tag had none.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

package podpatch

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
)

// structDiff returns the operations that jsonpatch.CreatePatch returns for
// the encoding/json encodings of from and to, with path prefixed to each, by
// walking the Go values instead of marshalling and re-parsing both: only
// the parts that differ are encoded. Values that encode themselves (types
// with MarshalJSON or MarshalText, such as quantities and times) and any
// shape this walker does not model (fields of embedded pointers, `string`
// options, floats, non-string map keys) are compared through encoding/json and
// jsonpatch as before, so the operations are the same in every case.
//
// unequal is true when a difference was found that also makes from and to
// unequal under equality.Semantic (a changed string, number or bool, a
// value that appeared or went away, a length that changed): only
// differences in self-encoding values (a quantity in another format) and
// between null and empty collections leave that open.
func structDiff(from, to any, path string) (ops []jsonpatch.JsonPatchOperation, unequal bool, err error) {
	d := differ{prefix: path}
	if err := d.member(reflect.ValueOf(from), reflect.ValueOf(to)); err != nil {
		return nil, false, err
	}
	return d.ops, d.unequal, nil
}

type differ struct {
	ops     []jsonpatch.JsonPatchOperation
	unequal bool
	// prefix and tokens are the path of the values being compared. Most
	// members compared are equal, so the path is rendered only for an
	// operation.
	prefix string
	tokens []string
}

// path renders the current path, escaping its tokens as RFC 6901 (and
// jsonpatch) do.
func (d *differ) path() string {
	if len(d.tokens) == 0 {
		return d.prefix
	}
	n := len(d.prefix)
	for _, t := range d.tokens {
		n += 1 + len(t)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(d.prefix)
	for _, t := range d.tokens {
		b.WriteByte('/')
		b.WriteString(pathEscaper.Replace(t))
	}
	return b.String()
}

// pathTo renders the path of the current path's member token.
func (d *differ) pathTo(token string) string {
	d.push(token)
	p := d.path()
	d.pop()
	return p
}

// child compares a and b at the current path's member token.
func (d *differ) child(a, b reflect.Value, token string) error {
	d.push(token)
	err := d.member(a, b)
	d.pop()
	return err
}

func (d *differ) push(token string) {
	if d.tokens == nil {
		d.tokens = make([]string, 0, 8) // deeper than Pod fields nest
	}
	d.tokens = append(d.tokens, token)
}

func (d *differ) pop() { d.tokens = d.tokens[:len(d.tokens)-1] }

// member compares a and b at the current path.
func (d *differ) member(a, b reflect.Value) error {
	if bothNil(a, b) {
		return nil // both encode to null, whatever their type
	}
	a, ka := kindOf(a)
	b, kb := kindOf(b)
	switch {
	case ka == jsonOpaque || kb == jsonOpaque:
		return d.encoded(a, b)
	case ka == jsonNull && kb == jsonNull:
		return nil
	case ka != kb:
		// equality.Semantic holds a nil and an empty map or slice equal.
		if !emptyCollection(a) && !emptyCollection(b) {
			d.unequal = true
		}
		d.add("replace", d.path(), b)
		return nil
	}
	switch ka {
	case jsonString:
		if a.String() != b.String() {
			d.unequal = true
			d.add("replace", d.path(), b)
		}
	case jsonBool:
		if a.Bool() != b.Bool() {
			d.unequal = true
			d.add("replace", d.path(), b)
		}
	case jsonNumber:
		if numberText(a) != numberText(b) {
			d.unequal = true
			d.add("replace", d.path(), b)
		}
	case jsonArray:
		if a.Len() == 0 && b.Len() == 0 {
			return nil
		}
		if a.Len() != b.Len() {
			d.unequal = true
		}
		return d.array(a, b)
	case jsonObject:
		return d.object(a, b)
	}
	return nil
}

// bothNil reports whether a and b both encode to null: nil pointers and
// interfaces, nil maps and slices, invalid values.
func bothNil(a, b reflect.Value) bool {
	return isNil(a) && isNil(b)
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Invalid:
		return true
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Map, reflect.Slice:
		// A nil map or slice of a type with its own MarshalJSON is
		// encoded by that method.
		return v.IsNil() && !typeInfoOf(v.Type()).opaque
	}
	return false
}

// emptyCollection reports whether v is a map or slice without elements.
func emptyCollection(v reflect.Value) bool {
	return v.IsValid() && (v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0
}

func numberText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	}
	return strconv.FormatUint(v.Uint(), 10)
}

// array follows jsonpatch: remove the elements a has beyond b's length
// (last first), add those b has beyond a's, then compare index by index;
// except for containers inserted into a container list (insert.go).
func (d *differ) array(a, b reflect.Value) error {
	if containerInsertions(a, b) {
		return d.insertions(a, b) // insert.go
	}
	n := min(a.Len(), b.Len())
	for i := a.Len() - 1; i >= n; i-- {
		d.ops = append(d.ops, jsonpatch.NewOperation("remove", d.pathTo(strconv.Itoa(i)), nil))
	}
	for i := n; i < b.Len(); i++ {
		d.add("add", d.pathTo(strconv.Itoa(i)), b.Index(i))
	}
	for i := 0; i < n; i++ {
		if err := d.child(a.Index(i), b.Index(i), strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// object compares two structs of one type, or two maps with string keys,
// member by member; anything else is compared through its encoding.
func (d *differ) object(a, b reflect.Value) error {
	if a.Type() != b.Type() {
		return d.encoded(a, b)
	}
	if a.Kind() == reflect.Map {
		return d.maps(a, b)
	}
	info := typeInfoOf(a.Type())
	for i := range info.fields {
		f := &info.fields[i]
		fa, fb := a.FieldByIndex(f.Index), b.FieldByIndex(f.Index)
		okA, okB := !f.Omitted(fa), !f.Omitted(fb)
		switch {
		case !okA && !okB:
		case !okA:
			d.unequal = true // an omitted field is empty, the other is not
			d.add("add", d.pathTo(f.Name), fb)
		case !okB:
			d.unequal = true
			d.ops = append(d.ops, jsonpatch.NewOperation("remove", d.pathTo(f.Name), nil))
		default:
			if err := d.child(fa, fb, f.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *differ) maps(a, b reflect.Value) error {
	if sa, ok := a.Interface().(map[string]string); ok {
		d.stringMaps(sa, b.Interface().(map[string]string))
		return nil
	}
	it := b.MapRange()
	for it.Next() {
		k := it.Key()
		va := a.MapIndex(k)
		if !va.IsValid() {
			d.unequal = true
			d.add("add", d.pathTo(k.String()), it.Value())
			continue
		}
		if err := d.child(va, it.Value(), k.String()); err != nil {
			return err
		}
	}
	it = a.MapRange()
	for it.Next() {
		if !b.MapIndex(it.Key()).IsValid() {
			d.unequal = true
			d.ops = append(d.ops, jsonpatch.NewOperation("remove", d.pathTo(it.Key().String()), nil))
		}
	}
	return nil
}

// stringMaps is maps for labels and annotations, without reflection,
// which copies every key and value it reads out of a map.
func (d *differ) stringMaps(a, b map[string]string) {
	for k, vb := range b {
		va, ok := a[k]
		switch {
		case !ok:
			d.unequal = true
			d.ops = append(d.ops, jsonpatch.NewOperation("add", d.pathTo(k), vb))
		case va != vb:
			d.unequal = true
			d.ops = append(d.ops, jsonpatch.NewOperation("replace", d.pathTo(k), vb))
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			d.unequal = true
			d.ops = append(d.ops, jsonpatch.NewOperation("remove", d.pathTo(k), nil))
		}
	}
}

// encoded compares a and b through encoding/json and jsonpatch.
func (d *differ) encoded(a, b reflect.Value) error {
	ja, err := json.Marshal(encodable(a))
	if err != nil {
		return err
	}
	jb, err := json.Marshal(encodable(b))
	if err != nil {
		return err
	}
	if bytes.Equal(ja, jb) {
		return nil
	}
	ops, err := jsonpatch.CreatePatch(ja, jb)
	if err != nil {
		return err
	}
	p := d.path()
	for _, op := range ops {
		op.Path = p + op.Path
		d.ops = append(d.ops, op)
	}
	return nil
}

// add appends an operation whose value is v, encoded as encoding/json
// would encode it within its document.
func (d *differ) add(op, p string, v reflect.Value) {
	d.ops = append(d.ops, jsonpatch.NewOperation(op, p, encodable(v)))
}

// encodable returns v as a value that encoding/json encodes as it encodes v
// within its document: through a pointer when v is addressable, so that
// methods on the pointer apply as they do there.
func encodable(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.CanAddr() {
		return v.Addr().Interface()
	}
	return v.Interface()
}

var pathEscaper = strings.NewReplacer("~", "~0", "/", "~1")

package policy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Valuer is implemented by types that convert themselves to a Rego value,
// for example to reuse a value computed once.
type Valuer interface {
	RegoValue() (ast.Value, error)
}

// ToValue converts a Go value to a Rego value the way encoding/json would
// marshal it (json tags, omitempty, inline), without going through JSON:
// building the policy input this way is several times cheaper than
// marshalling and parsing it. Types with their own MarshalJSON (quantities,
// times) are marshalled and parsed; Valuers convert themselves.
func ToValue(x any) (ast.Value, error) { return converter{}.toValue(reflect.ValueOf(x)) }

// ToCompactValue is ToValue that also leaves out struct fields whose value is
// the zero struct, as a client that writes YAML does; typed Go clients send
// them as {}. Policies cannot tell an empty object from an absent one.
func ToCompactValue(x any) (ast.Value, error) {
	return converter{omitZeroStructs: true}.toValue(reflect.ValueOf(x))
}

type converter struct{ omitZeroStructs bool }

func (c converter) toValue(v reflect.Value) (ast.Value, error) {
	if v.IsValid() && v.Type().Implements(valuerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		return v.Interface().(Valuer).RegoValue()
	}
	switch v.Kind() {
	case reflect.Invalid:
		return ast.NullValue, nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.NullValue, nil
		}
		if v.Kind() == reflect.Pointer && v.Type().Implements(marshalerType) {
			return marshalled(v)
		}
		return c.toValue(v.Elem())
	}
	if v.Type().Implements(marshalerType) || reflect.PointerTo(v.Type()).Implements(marshalerType) {
		return marshalled(v)
	}
	switch v.Kind() {
	case reflect.String:
		return ast.String(v.String()), nil
	case reflect.Bool:
		return ast.Boolean(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.Number(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ast.Number(strconv.FormatUint(v.Uint(), 10)), nil
	case reflect.Float32, reflect.Float64:
		return ast.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64)), nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return ast.NullValue, nil
		}
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			e, err := c.toValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			terms[i] = ast.NewTerm(e)
		}
		return ast.NewArray(terms...), nil
	case reflect.Map:
		if v.IsNil() {
			return ast.NullValue, nil
		}
		if v.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("policy input: map key type %s is not a string", v.Type().Key())
		}
		items := make([][2]*ast.Term, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			e, err := c.toValue(it.Value())
			if err != nil {
				return nil, err
			}
			items = append(items, [2]*ast.Term{ast.StringTerm(it.Key().String()), ast.NewTerm(e)})
		}
		return ast.NewObject(items...), nil
	case reflect.Struct:
		obj := ast.NewObject()
		if err := c.addFields(obj, v); err != nil {
			return nil, err
		}
		return obj, nil
	}
	return nil, fmt.Errorf("policy input: cannot convert %s", v.Type())
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	valuerType    = reflect.TypeFor[Valuer]()
)

func marshalled(v reflect.Value) (ast.Value, error) {
	data, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, err
	}
	return ast.ValueFromReader(strings.NewReader(string(data)))
}

// field is how one struct field appears in JSON.
type field struct {
	index     int
	name      string
	omitEmpty bool
	inline    bool
}

var fieldCache sync.Map // reflect.Type -> []field

func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		f := field{index: i, name: name, omitEmpty: strings.Contains(opts, "omitempty")}
		if strings.Contains(opts, "inline") || (sf.Anonymous && name == "") {
			f.inline = true
		} else if name == "" {
			f.name = sf.Name
		}
		out = append(out, f)
	}
	fieldCache.Store(t, out)
	return out
}

func (c converter) addFields(obj ast.Object, v reflect.Value) error {
	for _, f := range fieldsOf(v.Type()) {
		fv := v.Field(f.index)
		if f.inline {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if err := c.addFields(obj, fv); err != nil {
				return err
			}
			continue
		}
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		if c.omitZeroStructs && fv.Kind() == reflect.Struct && fv.IsZero() {
			continue
		}
		val, err := c.toValue(fv)
		if err != nil {
			return err
		}
		obj.Insert(ast.StringTerm(f.name), ast.NewTerm(val))
	}
	return nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

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
	if !v.IsValid() {
		return ast.NullValue, nil
	}
	return encoderOf(v.Type()).encode(c, v)
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

// encoder converts the values of one Go type. Encoders are built once per
// type, so that converting a value does not ask reflect again which
// interfaces the type implements or which fields it has.
type encoder struct {
	encode func(c converter, v reflect.Value) (ast.Value, error)
}

var encoders sync.Map // reflect.Type -> *encoder

// encoderOf returns the encoder of t, building it on first use. Building
// does not recurse (encoders look up those of element and field types when
// they first convert one), so recursive types need no special care.
func encoderOf(t reflect.Type) *encoder {
	if e, ok := encoders.Load(t); ok {
		return e.(*encoder)
	}
	e, _ := encoders.LoadOrStore(t, newEncoder(t))
	return e.(*encoder)
}

// newEncoder returns the encoder of t. Its cases, in order, are those that
// converter.toValue applied to every value before encoders existed: Valuers,
// nil pointers and interfaces, json.Marshalers, then the value's kind.
func newEncoder(t reflect.Type) *encoder {
	valuer := t.Implements(valuerType)
	switch t.Kind() {
	case reflect.Pointer:
		ptrMarshaler := t.Implements(marshalerType)
		var elem *encoder
		var once sync.Once
		return &encoder{encode: func(c converter, v reflect.Value) (ast.Value, error) {
			if v.IsNil() {
				return ast.NullValue, nil
			}
			if valuer {
				return v.Interface().(Valuer).RegoValue()
			}
			if ptrMarshaler {
				return marshalled(v)
			}
			once.Do(func() { elem = encoderOf(t.Elem()) })
			return elem.encode(c, v.Elem())
		}}
	case reflect.Interface:
		return &encoder{encode: func(c converter, v reflect.Value) (ast.Value, error) {
			if v.IsNil() {
				return ast.NullValue, nil
			}
			if valuer {
				return v.Interface().(Valuer).RegoValue()
			}
			e := v.Elem()
			return encoderOf(e.Type()).encode(c, e)
		}}
	}
	if valuer {
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) {
			return v.Interface().(Valuer).RegoValue()
		}}
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) { return marshalled(v) }}
	}
	switch t.Kind() {
	case reflect.String:
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) { return ast.String(v.String()), nil }}
	case reflect.Bool:
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) { return ast.Boolean(v.Bool()), nil }}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) {
			return ast.Number(strconv.FormatInt(v.Int(), 10)), nil
		}}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) {
			return ast.Number(strconv.FormatUint(v.Uint(), 10)), nil
		}}
	case reflect.Float32, reflect.Float64:
		return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) {
			return ast.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64)), nil
		}}
	case reflect.Slice, reflect.Array:
		var elem *encoder
		var once sync.Once
		slice := t.Kind() == reflect.Slice
		return &encoder{encode: func(c converter, v reflect.Value) (ast.Value, error) {
			if slice && v.IsNil() {
				return ast.NullValue, nil
			}
			once.Do(func() { elem = encoderOf(t.Elem()) })
			terms := make([]*ast.Term, v.Len())
			for i := range terms {
				e, err := elem.encode(c, v.Index(i))
				if err != nil {
					return nil, err
				}
				terms[i] = ast.NewTerm(e)
			}
			return ast.NewArray(terms...), nil
		}}
	case reflect.Map:
		var elem *encoder
		var once sync.Once
		stringKeys := t.Key().Kind() == reflect.String
		return &encoder{encode: func(c converter, v reflect.Value) (ast.Value, error) {
			if v.IsNil() {
				return ast.NullValue, nil
			}
			if !stringKeys {
				return nil, fmt.Errorf("policy input: map key type %s is not a string", t.Key())
			}
			once.Do(func() { elem = encoderOf(t.Elem()) })
			items := make([][2]*ast.Term, 0, v.Len())
			it := v.MapRange()
			for it.Next() {
				e, err := elem.encode(c, it.Value())
				if err != nil {
					return nil, err
				}
				items = append(items, [2]*ast.Term{ast.StringTerm(it.Key().String()), ast.NewTerm(e)})
			}
			return ast.NewObject(items...), nil
		}}
	case reflect.Struct:
		return structEncoder(t)
	}
	return &encoder{encode: func(_ converter, v reflect.Value) (ast.Value, error) {
		return nil, fmt.Errorf("policy input: cannot convert %s", v.Type())
	}}
}

// field is how one struct field appears in JSON.
type field struct {
	index     int
	name      string
	omitEmpty bool
	inline    bool
	// key is the name as an object key, shared by every value converted
	// (terms are immutable; OPA shares interned terms the same way).
	key *ast.Term
	// inner are the fields of an inline struct; for an inline pointer they
	// are listed when first needed (the struct may inline its own type).
	inner []field
	// isStruct is true when the field's type is a struct (compact values
	// leave out zero structs).
	isStruct bool
	// enc converts the field's values, once looked up.
	enc  *encoder
	once *sync.Once
}

func fieldsOf(t reflect.Type) []field {
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
			if sf.Type.Kind() == reflect.Struct {
				f.inner = fieldsOf(sf.Type)
			}
		} else if name == "" {
			f.name = sf.Name
		}
		f.key = ast.StringTerm(f.name)
		f.isStruct = sf.Type.Kind() == reflect.Struct
		f.once = &sync.Once{}
		out = append(out, f)
	}
	return out
}

// structEncoder converts a struct to an object of its JSON fields; inline
// fields add their own. Where two fields could write the same key, the later
// one wins, as before.
func structEncoder(t reflect.Type) *encoder {
	fields := fieldsOf(t)
	unique := uniqueNames(fields, map[string]bool{})
	return &encoder{encode: func(c converter, v reflect.Value) (ast.Value, error) {
		items := make([][2]*ast.Term, 0, len(fields))
		items, err := c.addFields(items, fields, v)
		if err != nil {
			return nil, err
		}
		if unique {
			return ast.NewObject(items...), nil
		}
		obj := ast.NewObject()
		for _, kv := range items {
			obj.Insert(kv[0], kv[1])
		}
		return obj, nil
	}}
}

// uniqueNames reports whether no two of the fields (inline ones expanded)
// can have the same name.
func uniqueNames(fields []field, seen map[string]bool) bool {
	for _, f := range fields {
		if f.inline {
			if f.inner == nil {
				return false
			}
			if !uniqueNames(f.inner, seen) {
				return false
			}
			continue
		}
		if seen[f.name] {
			return false
		}
		seen[f.name] = true
	}
	return true
}

func (c converter) addFields(items [][2]*ast.Term, fields []field, v reflect.Value) ([][2]*ast.Term, error) {
	for i := range fields {
		f := &fields[i]
		fv := v.Field(f.index)
		if f.inline {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			inner := f.inner
			if inner == nil {
				inner = fieldsOf(fv.Type()) // an inline pointer's struct (or a non-struct, which fails as before)
			}
			var err error
			if items, err = c.addFields(items, inner, fv); err != nil {
				return nil, err
			}
			continue
		}
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		if c.omitZeroStructs && f.isStruct && fv.IsZero() {
			continue
		}
		f.once.Do(func() { f.enc = encoderOf(fv.Type()) })
		val, err := f.enc.encode(c, fv)
		if err != nil {
			return nil, err
		}
		items = append(items, [2]*ast.Term{f.key, ast.NewTerm(val)})
	}
	return items, nil
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

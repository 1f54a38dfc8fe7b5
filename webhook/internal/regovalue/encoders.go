package regovalue

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/webhook/internal/jsonfields"
)

// encoder converts the values of one Go type. Encoders are built once per
// type, so that converting a value does not ask reflect again which
// interfaces the type implements or which fields it has.
type encoder struct {
	encode func(c *converter, v reflect.Value) (ast.Value, error)
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
		return &encoder{encode: func(c *converter, v reflect.Value) (ast.Value, error) {
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
		return &encoder{encode: func(c *converter, v reflect.Value) (ast.Value, error) {
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
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) {
			return v.Interface().(Valuer).RegoValue()
		}}
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) { return marshalled(v) }}
	}
	switch t.Kind() {
	case reflect.String:
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) { return ast.String(v.String()), nil }}
	case reflect.Bool:
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) { return ast.Boolean(v.Bool()), nil }}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) {
			return ast.Number(strconv.FormatInt(v.Int(), 10)), nil
		}}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) {
			return ast.Number(strconv.FormatUint(v.Uint(), 10)), nil
		}}
	case reflect.Float32, reflect.Float64:
		return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) {
			return ast.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64)), nil
		}}
	case reflect.Slice, reflect.Array:
		var elem *encoder
		var once sync.Once
		slice := t.Kind() == reflect.Slice
		return &encoder{encode: func(c *converter, v reflect.Value) (ast.Value, error) {
			if slice && v.IsNil() {
				return ast.NullValue, nil
			}
			once.Do(func() { elem = encoderOf(t.Elem()) })
			n := v.Len()
			terms, elems := make([]ast.Term, n), make([]*ast.Term, n)
			for i := range n {
				e, err := elem.encode(c, v.Index(i))
				if err != nil {
					return nil, err
				}
				terms[i].Value = e
				elems[i] = &terms[i]
			}
			return ast.NewArray(elems...), nil
		}}
	case reflect.Map:
		var elem *encoder
		var once sync.Once
		stringKeys := t.Key().Kind() == reflect.String
		return &encoder{encode: func(c *converter, v reflect.Value) (ast.Value, error) {
			if v.IsNil() {
				return ast.NullValue, nil
			}
			if !stringKeys {
				return nil, fmt.Errorf("policy input: map key type %s is not a string", t.Key())
			}
			once.Do(func() { elem = encoderOf(t.Elem()) })
			start := len(c.entries)
			it := v.MapRange()
			for it.Next() {
				e, err := elem.encode(c, it.Value())
				if err != nil {
					c.drop(start)
					return nil, err
				}
				c.entries = append(c.entries, entry{name: it.Key().String(), val: e})
			}
			return c.object(start), nil
		}}
	case reflect.Struct:
		return structEncoder(t)
	}
	return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) {
		return nil, fmt.Errorf("policy input: cannot convert %s", v.Type())
	}}
}

// field is how one struct field appears in JSON (see jsonfields).
type field struct {
	jsonfields.Field
	// index is the field's index when it is not in an embedded struct
	// (Index has one element), or -1.
	index int
	// key is the name as an object key, shared by every value converted
	// (terms are immutable; OPA shares interned terms the same way).
	key *ast.Term
	// isStruct is true when the field's type is a struct (compact values
	// leave out zero structs).
	isStruct bool
	// enc converts the field's values, once looked up.
	enc  *encoder
	once *sync.Once
}

func fieldsOf(t reflect.Type) []field {
	fs := jsonfields.Of(t)
	out := make([]field, len(fs))
	for i, f := range fs {
		out[i] = field{Field: f, index: -1, key: ast.StringTerm(f.Name), isStruct: f.Type.Kind() == reflect.Struct, once: &sync.Once{}}
		if len(f.Index) == 1 {
			out[i].index = f.Index[0]
		}
	}
	return out
}

// structEncoder converts a struct to an object of its JSON fields, the
// fields of embedded structs included. A struct with a field under the
// string option is marshalled and parsed.
func structEncoder(t reflect.Type) *encoder {
	fields := fieldsOf(t)
	for _, f := range fields {
		if f.Quoted {
			return &encoder{encode: func(_ *converter, v reflect.Value) (ast.Value, error) { return marshalled(v) }}
		}
	}
	return &encoder{encode: func(c *converter, v reflect.Value) (ast.Value, error) {
		start := len(c.entries)
		if err := c.addFields(fields, v); err != nil {
			c.drop(start)
			return nil, err
		}
		return c.object(start), nil
	}}
}

// addFields pushes the entries of v's fields.
func (c *converter) addFields(fields []field, v reflect.Value) error {
	for i := range fields {
		f := &fields[i]
		var fv reflect.Value
		if f.index >= 0 {
			fv = v.Field(f.index)
		} else if fv, _ = f.Value(v); !fv.IsValid() {
			continue // in an embedded struct behind a nil pointer
		}
		if f.Omitted(fv) {
			continue
		}
		if c.omitZeroStructs && f.isStruct && fv.IsZero() {
			continue
		}
		f.once.Do(func() { f.enc = encoderOf(fv.Type()) })
		val, err := f.enc.encode(c, fv)
		if err != nil {
			return err
		}
		c.entries = append(c.entries, entry{key: f.key, val: val})
	}
	return nil
}

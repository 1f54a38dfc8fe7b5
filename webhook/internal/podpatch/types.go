package podpatch

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/sluice-data/sluice/webhook/internal/jsonfields"
)

// jsonKind is the kind of JSON value a Go value encodes to.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonObject
	jsonArray
	jsonString
	jsonNumber
	jsonBool
	// jsonOpaque values are compared through their encoding.
	jsonOpaque
)

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// encodesItself reports whether encoding/json encodes values of t with a
// method of t or *t.
func encodesItself(t reflect.Type) bool {
	if t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) {
		return true
	}
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		return pt.Implements(jsonMarshalerType) || pt.Implements(textMarshalerType)
	}
	return false
}

// kindOf returns v's JSON kind, with v resolved through pointers and
// interfaces (invalid when it encodes to null).
func kindOf(v reflect.Value) (reflect.Value, jsonKind) {
	for {
		if !v.IsValid() {
			return v, jsonNull
		}
		if typeInfoOf(v.Type()).opaque {
			return v, jsonOpaque
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return reflect.Value{}, jsonNull
			}
			v = v.Elem()
			continue
		case reflect.Interface:
			// Compared through the encoding, which also keeps custom
			// equalities (label selectors) out of the unequal test.
			if v.IsNil() {
				return reflect.Value{}, jsonNull
			}
			return v, jsonOpaque
		case reflect.Struct:
			return v, jsonObject
		case reflect.Map:
			if v.IsNil() {
				return reflect.Value{}, jsonNull
			}
			return v, jsonObject
		case reflect.Slice:
			if v.IsNil() {
				return reflect.Value{}, jsonNull
			}
			return v, jsonArray
		case reflect.Array:
			return v, jsonArray
		case reflect.String:
			return v, jsonString
		case reflect.Bool:
			return v, jsonBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return v, jsonNumber
		}
		return v, jsonOpaque
	}
}

// typeInfo is how encoding/json encodes a type, as far as structDiff needs.
type typeInfo struct {
	// opaque types are compared through their encoding.
	opaque bool
	// fields are a struct's members, in encoding order.
	fields []jsonfields.Field
}

var typeInfos sync.Map // reflect.Type -> *typeInfo

func typeInfoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeInfos.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := buildTypeInfo(t)
	typeInfos.Store(t, ti)
	return ti
}

func buildTypeInfo(t reflect.Type) *typeInfo {
	if encodesItself(t) {
		return &typeInfo{opaque: true}
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return &typeInfo{opaque: true}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return &typeInfo{opaque: true}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &typeInfo{opaque: true} // base64, or a Marshaler element
		}
	case reflect.Struct:
		fields := jsonfields.Of(t)
		for _, f := range fields {
			// Left to encoding/json: fields in embedded pointers, and
			// values written as strings.
			if f.Indirect || f.Quoted {
				return &typeInfo{opaque: true}
			}
		}
		return &typeInfo{fields: fields}
	}
	return &typeInfo{}
}

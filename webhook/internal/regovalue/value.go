package regovalue

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Valuer is implemented by types that convert themselves to a Rego value,
// for example to reuse a value computed once.
type Valuer interface {
	RegoValue() (ast.Value, error)
}

// ToValue converts a Go value to a Rego value the way encoding/json would
// marshal it (its struct rules are jsonfields'), without going through JSON:
// building the policy input this way is several times cheaper than
// marshalling and parsing it. Types with their own MarshalJSON (quantities,
// times) are marshalled and parsed; Valuers convert themselves.
func ToValue(x any) (ast.Value, error) { return convert(x, false) }

// ToCompactValue is ToValue that also leaves out struct fields whose value is
// the zero struct, as a client that writes YAML does; typed Go clients send
// them as {}. Policies cannot tell an empty object from an absent one.
func ToCompactValue(x any) (ast.Value, error) { return convert(x, true) }

// converter holds the scratch space of one conversion. The policy input is
// converted on every admission, and allocations (each one also costs the
// garbage collector) are most of its cost, so the fields of the objects
// being built are gathered on one stack shared by all nesting levels, and
// converters are reused.
type converter struct {
	omitZeroStructs bool
	// entries are the fields of the objects being built, outermost first;
	// each object takes its own off the top when done.
	entries []entry
	// items is the argument of the one ast.NewObject call being made.
	items [][2]*ast.Term
}

// entry is one object field: its key term, or a key still to be made
// from name when key is nil, and its value.
type entry struct {
	key  *ast.Term
	name string
	val  ast.Value
}

var converters = sync.Pool{New: func() any { return &converter{} }}

func convert(x any, omitZeroStructs bool) (ast.Value, error) {
	c := converters.Get().(*converter)
	c.omitZeroStructs = omitZeroStructs
	v, err := c.toValue(reflect.ValueOf(x))
	converters.Put(c)
	return v, err
}

func (c *converter) toValue(v reflect.Value) (ast.Value, error) {
	if !v.IsValid() {
		return ast.NullValue, nil
	}
	return encoderOf(v.Type()).encode(c, v)
}

// object pops the entries from start on, whose keys are unique, into a new
// object. The terms of its keys and values are allocated together.
func (c *converter) object(start int) ast.Value {
	es := c.entries[start:]
	n := len(es)
	for _, e := range es {
		if e.key == nil {
			n++
		}
	}
	terms := make([]ast.Term, n)
	items := c.items[:0]
	for i, e := range es {
		terms[i].Value = e.val
		k := e.key
		if k == nil {
			n--
			terms[n].Value = ast.String(e.name)
			k = &terms[n]
		}
		items = append(items, [2]*ast.Term{k, &terms[i]})
	}
	obj := ast.NewObject(items...)
	c.drop(start)
	clear(items)
	c.items = items[:0]
	return obj
}

// drop pops the entries from start on, clearing them so that a pooled
// converter keeps no value alive.
func (c *converter) drop(start int) {
	clear(c.entries[start:])
	c.entries = c.entries[:start]
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
	return ast.ValueFromReader(bytes.NewReader(data))
}

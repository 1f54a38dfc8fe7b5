package decision

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
)

// decoder walks a policy result, as the evaluator returns it (Rego values,
// without a conversion to Go maps and lists), into typed decisions. Sets
// are read in Rego's sort order, so equal results decode equally. Every
// mismatch is an error naming the path.
//
// Decoding runs on every admission, so the path is kept as steps and
// rendered only for an error, and object entries are collected into one
// stack shared by all nesting levels instead of a slice per object.
type decoder struct {
	path []step
	// entries holds the entries of the objects being decoded, outermost
	// first; each level truncates it back to where it started.
	entries [][2]*ast.Term
	// collect appends one entry; it is made once per decoder, as a closure
	// handed to Object.Foreach is heap-allocated on every call.
	collect func(k, v *ast.Term)
	// pathBuf and entriesBuf back path and entries up to typical depths
	// and sizes.
	pathBuf    [8]step
	entriesBuf [32][2]*ast.Term
}

// step is one element of a path: an object key, or a list index when index
// is not negative.
type step struct {
	key   string
	index int
}

func newDecoder() *decoder {
	d := &decoder{}
	d.path, d.entries = d.pathBuf[:0], d.entriesBuf[:0]
	d.collect = func(k, v *ast.Term) { d.entries = append(d.entries, [2]*ast.Term{k, v}) }
	return d
}

func (d *decoder) errorf(format string, args ...any) error {
	var p strings.Builder
	for _, s := range d.path {
		if s.index < 0 {
			p.WriteByte('.')
			p.WriteString(s.key)
		} else {
			p.WriteByte('[')
			p.WriteString(strconv.Itoa(s.index))
			p.WriteByte(']')
		}
	}
	if p.Len() == 0 {
		p.WriteString("(document)")
	}
	return fmt.Errorf("%s: %s", p.String(), fmt.Sprintf(format, args...))
}

func (d *decoder) pushKey(k string) { d.path = append(d.path, step{key: k, index: -1}) }
func (d *decoder) pushIndex(i int)  { d.path = append(d.path, step{index: i}) }
func (d *decoder) pop()             { d.path = d.path[:len(d.path)-1] }

// absent reports whether v stands for a missing value (nil or null).
func absent(v ast.Value) bool {
	if v == nil {
		return true
	}
	_, null := v.(ast.Null)
	return null
}

// object decodes an object, calling field for each key in sorted order;
// unknown keys are errors unless field reports them as known.
func (d *decoder) object(v ast.Value, field func(key string, v ast.Value) (bool, error)) error {
	if absent(v) {
		return nil
	}
	o, ok := v.(ast.Object)
	if !ok {
		return d.errorf("want an object, got %s", ast.ValueName(v))
	}
	// Foreach visits the keys in Rego's sort order, which for strings is
	// Go's; a non-string key is reported before any field is decoded.
	start := len(d.entries)
	o.Foreach(d.collect)
	end := len(d.entries)
	defer func() { d.entries = d.entries[:start] }()
	for i := start; i < end; i++ {
		if k := d.entries[i][0]; !isString(k) {
			return d.errorf("want string keys, got %s %v", ast.ValueName(k.Value), k)
		}
	}
	for i := start; i < end; i++ {
		// Nested objects append past end and may move entries: index anew.
		kv := d.entries[i]
		k := string(kv[0].Value.(ast.String))
		d.pushKey(k)
		known, err := field(k, kv[1].Value)
		if err == nil && !known {
			err = d.errorf("unknown field")
		}
		d.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

func isString(t *ast.Term) bool {
	_, ok := t.Value.(ast.String)
	return ok
}

// list decodes an array, or a set in sort order.
func (d *decoder) list(v ast.Value, item func(i int, v ast.Value) error) error {
	if absent(v) {
		return nil
	}
	switch l := v.(type) {
	case *ast.Array:
		for i := range l.Len() {
			if err := d.item(i, l.Elem(i).Value, item); err != nil {
				return err
			}
		}
	case ast.Set:
		// Slice is the set's own sorted keys, read but not kept.
		for i, e := range l.Slice() {
			if err := d.item(i, e.Value, item); err != nil {
				return err
			}
		}
	default:
		return d.errorf("want a list, got %s", ast.ValueName(v))
	}
	return nil
}

func (d *decoder) item(i int, v ast.Value, item func(i int, v ast.Value) error) error {
	d.pushIndex(i)
	err := item(i, v)
	d.pop()
	return err
}

func (d *decoder) str(v ast.Value, out *string) error {
	s, ok := v.(ast.String)
	if !ok {
		return d.errorf("want a string, got %s", ast.ValueName(v))
	}
	*out = string(s)
	return nil
}

func (d *decoder) boolean(v ast.Value, out *bool) error {
	b, ok := v.(ast.Boolean)
	if !ok {
		return d.errorf("want a boolean, got %s", ast.ValueName(v))
	}
	*out = bool(b)
	return nil
}

func (d *decoder) int32(v ast.Value, out *int32) error {
	n, ok := v.(ast.Number)
	if !ok {
		return d.errorf("want a number, got %s", ast.ValueName(v))
	}
	i, err := strconv.ParseInt(string(n), 10, 32)
	if err != nil {
		return d.errorf("want a 32-bit integer, got %s", n)
	}
	*out = int32(i)
	return nil
}

func (d *decoder) strings(v ast.Value, out *[]string) error {
	return d.list(v, func(_ int, e ast.Value) error {
		var s string
		if err := d.str(e, &s); err != nil {
			return err
		}
		*out = append(*out, s)
		return nil
	})
}

func (d *decoder) stringMap(v ast.Value, out *map[string]string) error {
	if o, ok := v.(ast.Object); ok && o.Len() > 0 && *out == nil {
		*out = make(map[string]string, o.Len())
	}
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		var s string
		if err := d.str(e, &s); err != nil {
			return true, err
		}
		(*out)[k] = s
		return true, nil
	})
}

func (d *decoder) requirement(v ast.Value, out *corev1.NodeSelectorRequirement) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "key":
			return true, d.str(e, &out.Key)
		case "operator":
			var s string
			err := d.str(e, &s)
			out.Operator = corev1.NodeSelectorOperator(s)
			return true, err
		case "values":
			return true, d.strings(e, &out.Values)
		}
		return false, nil
	})
}

func (d *decoder) requirements(v ast.Value, out *[]corev1.NodeSelectorRequirement) error {
	return d.list(v, func(_ int, e ast.Value) error {
		var r corev1.NodeSelectorRequirement
		if err := d.requirement(e, &r); err != nil {
			return err
		}
		*out = append(*out, r)
		return nil
	})
}

func (d *decoder) term(v ast.Value, out *corev1.NodeSelectorTerm) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "matchExpressions":
			return true, d.requirements(e, &out.MatchExpressions)
		case "matchFields":
			return true, d.requirements(e, &out.MatchFields)
		}
		return false, nil
	})
}

func (d *decoder) preferred(v ast.Value, out *corev1.PreferredSchedulingTerm) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "weight":
			return true, d.int32(e, &out.Weight)
		case "preference":
			return true, d.term(e, &out.Preference)
		}
		return false, nil
	})
}

func (d *decoder) denial(v ast.Value, out *Denial) error {
	return d.object(v, func(k string, e ast.Value) (bool, error) {
		switch k {
		case "rule":
			return true, d.str(e, &out.Rule)
		case "message":
			return true, d.str(e, &out.Message)
		}
		return false, nil
	})
}

func (d *decoder) denials(v ast.Value, out *[]Denial) error {
	return d.list(v, func(_ int, e ast.Value) error {
		var x Denial
		err := d.denial(e, &x)
		*out = append(*out, x)
		return err
	})
}

package decision

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	corev1 "k8s.io/api/core/v1"
)

// decoder walks a policy result, as the evaluator returns it (Rego values,
// without a conversion to Go maps and lists), into typed decisions. Sets
// are read in Rego's sort order, so equal results decode equally. Every
// mismatch is an error naming the path.
type decoder struct{ path []string }

func (d *decoder) errorf(format string, args ...any) error {
	p := strings.Join(d.path, "")
	if p == "" {
		p = "(document)"
	}
	return fmt.Errorf("%s: %s", p, fmt.Sprintf(format, args...))
}

func (d *decoder) push(s string) { d.path = append(d.path, s) }
func (d *decoder) pop()          { d.path = d.path[:len(d.path)-1] }

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
	type item struct {
		key string
		val ast.Value
	}
	items := make([]item, 0, o.Len())
	var bad *ast.Term
	o.Foreach(func(k, v *ast.Term) {
		if s, ok := k.Value.(ast.String); ok {
			items = append(items, item{string(s), v.Value})
		} else if bad == nil {
			bad = k
		}
	})
	if bad != nil {
		return d.errorf("want string keys, got %s %v", ast.ValueName(bad.Value), bad)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].key < items[j].key })
	for _, it := range items {
		k := it.key
		d.push("." + k)
		known, err := field(k, it.val)
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

// list decodes an array, or a set in sort order.
func (d *decoder) list(v ast.Value, item func(i int, v ast.Value) error) error {
	if absent(v) {
		return nil
	}
	var arr *ast.Array
	switch l := v.(type) {
	case *ast.Array:
		arr = l
	case ast.Set:
		arr = l.Sorted()
	default:
		return d.errorf("want a list, got %s", ast.ValueName(v))
	}
	for i := range arr.Len() {
		d.push("[" + strconv.Itoa(i) + "]")
		err := item(i, arr.Elem(i).Value)
		d.pop()
		if err != nil {
			return err
		}
	}
	return nil
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

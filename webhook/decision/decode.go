package decision

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// decoder walks a policy result (maps, lists, strings, bools and
// json.Numbers, as OPA returns them) into typed decisions without a JSON
// round trip. Every mismatch is an error naming the path.
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

// object decodes an object, calling field for each key; unknown keys are
// errors unless field reports them as known.
func (d *decoder) object(v any, field func(key string, v any) (bool, error)) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return d.errorf("want an object, got %T", v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.push("." + k)
		known, err := field(k, m[k])
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

func (d *decoder) list(v any, item func(i int, v any) error) error {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		return d.errorf("want a list, got %T", v)
	}
	for i, e := range l {
		d.push("[" + strconv.Itoa(i) + "]")
		err := item(i, e)
		d.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) str(v any, out *string) error {
	s, ok := v.(string)
	if !ok {
		return d.errorf("want a string, got %T", v)
	}
	*out = s
	return nil
}

func (d *decoder) boolean(v any, out *bool) error {
	b, ok := v.(bool)
	if !ok {
		return d.errorf("want a boolean, got %T", v)
	}
	*out = b
	return nil
}

func (d *decoder) int32(v any, out *int32) error {
	n, ok := v.(json.Number)
	if !ok {
		return d.errorf("want a number, got %T", v)
	}
	i, err := strconv.ParseInt(string(n), 10, 32)
	if err != nil {
		return d.errorf("want a 32-bit integer, got %s", n)
	}
	*out = int32(i)
	return nil
}

func (d *decoder) strings(v any, out *[]string) error {
	return d.list(v, func(_ int, e any) error {
		var s string
		if err := d.str(e, &s); err != nil {
			return err
		}
		*out = append(*out, s)
		return nil
	})
}

func (d *decoder) stringMap(v any, out *map[string]string) error {
	if v == nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok && len(m) > 0 && *out == nil {
		*out = make(map[string]string, len(m))
	}
	return d.object(v, func(k string, e any) (bool, error) {
		var s string
		if err := d.str(e, &s); err != nil {
			return true, err
		}
		(*out)[k] = s
		return true, nil
	})
}

func (d *decoder) requirement(v any, out *corev1.NodeSelectorRequirement) error {
	return d.object(v, func(k string, e any) (bool, error) {
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

func (d *decoder) requirements(v any, out *[]corev1.NodeSelectorRequirement) error {
	return d.list(v, func(_ int, e any) error {
		var r corev1.NodeSelectorRequirement
		if err := d.requirement(e, &r); err != nil {
			return err
		}
		*out = append(*out, r)
		return nil
	})
}

func (d *decoder) term(v any, out *corev1.NodeSelectorTerm) error {
	return d.object(v, func(k string, e any) (bool, error) {
		switch k {
		case "matchExpressions":
			return true, d.requirements(e, &out.MatchExpressions)
		case "matchFields":
			return true, d.requirements(e, &out.MatchFields)
		}
		return false, nil
	})
}

func (d *decoder) preferred(v any, out *corev1.PreferredSchedulingTerm) error {
	return d.object(v, func(k string, e any) (bool, error) {
		switch k {
		case "weight":
			return true, d.int32(e, &out.Weight)
		case "preference":
			return true, d.term(e, &out.Preference)
		}
		return false, nil
	})
}

func (d *decoder) denial(v any, out *Denial) error {
	return d.object(v, func(k string, e any) (bool, error) {
		switch k {
		case "rule":
			return true, d.str(e, &out.Rule)
		case "message":
			return true, d.str(e, &out.Message)
		}
		return false, nil
	})
}

func (d *decoder) denials(v any, out *[]Denial) error {
	return d.list(v, func(_ int, e any) error {
		var x Denial
		err := d.denial(e, &x)
		*out = append(*out, x)
		return err
	})
}

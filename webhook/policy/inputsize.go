package policy

import "github.com/open-policy-agent/opa/v1/ast"

// Per-node overheads InputSize adds to the bytes of strings and numbers:
// rough sizes of the Go values the AST holds (term, interface, slice or
// map slot), so that a value of many small nodes is not counted as free.
const (
	scalarOverhead    = 32
	compositeOverhead = 64
)

// InputSize is the approximate memory an input value holds: the bytes of
// its strings and numbers plus a fixed overhead per node. It bounds the
// decision memo by what it keeps alive rather than by its count.
func InputSize(v ast.Value) int64 {
	switch x := v.(type) {
	case ast.String:
		return int64(len(x)) + scalarOverhead
	case ast.Number:
		return int64(len(x)) + scalarOverhead
	case *ast.Array:
		n := int64(compositeOverhead)
		x.Foreach(func(t *ast.Term) { n += InputSize(t.Value) })
		return n
	case ast.Object:
		n := int64(compositeOverhead)
		x.Foreach(func(k, v *ast.Term) { n += InputSize(k.Value) + InputSize(v.Value) })
		return n
	case ast.Set:
		n := int64(compositeOverhead)
		x.Foreach(func(t *ast.Term) { n += InputSize(t.Value) })
		return n
	}
	return scalarOverhead // booleans, null, and anything else
}

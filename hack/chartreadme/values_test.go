package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseValues(t *testing.T) {
	got, err := parseValues([]byte(`# The file's own comment.

# a is one value.
a: 1
b: x
# m documents its values.
m:
  # k is commented.
  k: {x: 1}
  l: [1, 2]
  # n is a mapping with a comment.
  n:
    o: true
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []section{
		{Key: "a", Comment: "a is one value.", Rows: []row{{Key: "a", Default: "1", Comment: "a is one value."}}},
		{Key: "b", Comment: "As `a`, above.", Rows: []row{{Key: "b", Default: `"x"`, Comment: "As `a`, above."}}},
		{Key: "m", Comment: "m documents its values.", Rows: []row{
			{Key: "m.k", Default: `{"x":1}`, Comment: "k is commented."},
			{Key: "m.l", Default: "[1,2]"},
			{Key: "m.n", Comment: "n is a mapping with a comment."},
			{Key: "m.n.o", Default: "true"},
		}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestUndocumentedValuesFail(t *testing.T) {
	for name, values := range map[string]string{
		"top-level value":                     "# a.\na: 1\n\nb: 2\n",
		"mapping":                             "m:\n  k: 1\n",
		"value under an undocumented mapping": "# m.\nm:\n  k: 1\nn:\n  # o.\n  o: 1\n  p: 2\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parseValues([]byte(values))
			if err == nil || !strings.Contains(err.Error(), "no comment above it") {
				t.Errorf("got %v, want an error naming the undocumented value", err)
			}
		})
	}
}

func TestTableEscapes(t *testing.T) {
	got := valuesTable([]section{{Key: "a", Rows: []row{{Key: "a", Default: `"x|y"`, Comment: "bind <release>-reader | or not"}}}})
	if !strings.Contains(got, "| `a` | `\"x\\|y\"` | bind &lt;release&gt;-reader \\| or not |") {
		t.Errorf("cells not escaped:\n%s", got)
	}
}

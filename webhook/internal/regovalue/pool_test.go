package regovalue

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// compactInside is a Valuer that converts a value of its own, compactly,
// while the conversion that reached it is in progress.
type compactInside struct{}

type withZero struct {
	Name  string   `json:"name"`
	Empty struct{} `json:"empty"`
}

func (compactInside) RegoValue() (ast.Value, error) { return ToCompactValue(withZero{Name: "inner"}) }

type outer struct {
	Before string        `json:"before"`
	Inner  compactInside `json:"inner"`
	After  withZero      `json:"after"`
}

// A Valuer may convert values while a conversion is in progress: each gets a
// converter of its own, so neither the outer fields nor the outer
// conversion's (non-compact) mode are disturbed.
func TestToValueReentrant(t *testing.T) {
	got, err := ToValue(outer{Before: "b", After: withZero{Name: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := ast.MustParseTerm(`{"before": "b", "inner": {"name": "inner"}, "after": {"name": "a", "empty": {}}}`).Value
	if got.Compare(want) != 0 {
		t.Errorf("got %v, want %v", got, want)
	}
}

type badInner struct {
	K map[int]string `json:"k"`
}

type bad struct {
	A string     `json:"a"`
	B []badInner `json:"b"`
}

// A conversion that fails deep inside leaves the pooled converter empty,
// holding no value alive.
func TestToValueErrorLeavesConverterClean(t *testing.T) {
	for range 10 {
		if _, err := ToValue(bad{A: "a", B: []badInner{{}, {K: map[int]string{1: "x"}}}}); err == nil {
			t.Fatal("a map with int keys converted")
		}
		c := converters.Get().(*converter)
		for _, e := range c.entries[:cap(c.entries)] {
			if e.val != nil || e.key != nil || e.name != "" {
				t.Fatalf("the pooled converter keeps %+v", e)
			}
		}
		for _, it := range c.items[:cap(c.items)] {
			if it[0] != nil || it[1] != nil {
				t.Fatalf("the pooled converter keeps %v", it)
			}
		}
		if len(c.entries) != 0 || len(c.items) != 0 {
			t.Fatalf("the pooled converter has %d entries and %d items left", len(c.entries), len(c.items))
		}
		converters.Put(c)
	}
}

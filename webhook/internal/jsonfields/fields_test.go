package jsonfields

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// zeroByValue and zeroByPointer are zero, for omitzero, when N is not
// positive: their IsZero methods, not the zero value, decide.
type zeroByValue struct{ N int }

func (z zeroByValue) IsZero() bool { return z.N <= 0 }

type zeroByPointer struct{ N int }

func (z *zeroByPointer) IsZero() bool { return z.N <= 0 }

type zeroer interface{ IsZero() bool }

type Inner struct {
	A      string `json:"a"`
	Shadow string `json:"shadow"`
	Deep   string
}

type inner2 struct {
	B    string `json:"b,omitempty"`
	Deep string
}

type Twin struct{ T string }

type Left struct{ Twin }
type Right struct{ Twin }

type Quoted struct {
	N int     `json:"n,string"`
	P *bool   `json:"p,string,omitempty"`
	S []int   `json:"s,string"` //nolint:staticcheck // deliberate: the option does not apply to a slice
	F float64 `json:"f,string"`
}

// shapes has a field of every kind Of models.
type shapes struct {
	Inner                    // promoted fields, one shadowed
	inner2                   // unexported embedded struct: fields promoted
	*Twin                    // embedded pointer
	Left                     // Left.Twin.T and Right.Twin.T clash at one depth:
	Right                    // neither is written
	Named    Inner           `json:"named"` // an embedded-looking struct with a name is one field
	Shadow   string          // shallower than Inner.Shadow: wins
	Skipped  string          `json:"-"`
	Dash     string          `json:"-,"`   //nolint:staticcheck // deliberate: a field named "-"
	Bad      string          `json:"a\"b"` //nolint:staticcheck // deliberate: an invalid name, for which the Go name is used
	private  string          //nolint:unused // never written
	Empty    []string        `json:"empty,omitempty"`
	Count    int             `json:"count,omitzero"`
	Ptr      *string         `json:"ptr,omitzero"`
	Plain    struct{ X int } `json:"plain,omitzero"`
	ByValue  zeroByValue     `json:"byValue,omitzero"`
	ByPtr    zeroByPointer   `json:"byPtr,omitzero"`
	PtrByVal *zeroByValue    `json:"ptrByVal,omitzero"`
	Iface    zeroer          `json:"iface,omitzero"`
	Time     metav1.Time     `json:"time,omitempty,omitzero"`
	Std      time.Time       `json:"std,omitzero"`
	Both     []int           `json:"both,omitempty,omitzero"`
}

// keys returns the member names of a JSON object, in order.
func keys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s is not an object", data)
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// written returns the names of the fields Of says encoding/json writes for
// v, in order.
func written(v any) []string {
	rv := reflect.ValueOf(v)
	var out []string
	for _, f := range Of(rv.Type()) {
		fv, ok := f.Value(rv)
		if ok && !f.Omitted(fv) {
			out = append(out, f.Name)
		}
	}
	return out
}

// Of and Omitted write the members encoding/json writes, in its order, for
// structs with every shape of field: embedded (exported, unexported,
// through a nil or set pointer), shadowed and clashing names, "-", invalid
// names, and omitempty and omitzero over values that are zero by IsZero
// method (on the value, on the pointer, through an interface) or by value.
func TestOfWritesWhatEncodingJSONWrites(t *testing.T) {
	s := "s"
	for i, v := range []shapes{
		{},
		{Twin: &Twin{T: "t"}, Count: 1, Ptr: &s, Empty: []string{"e"}, Plain: struct{ X int }{1}},
		{ByValue: zeroByValue{-1}, ByPtr: zeroByPointer{-1}, PtrByVal: &zeroByValue{-1}, Iface: zeroByValue{-1}},
		{ByValue: zeroByValue{1}, ByPtr: zeroByPointer{1}, PtrByVal: &zeroByValue{1}, Iface: &zeroByPointer{1}},
		{Iface: (*zeroByPointer)(nil), Time: metav1.Now(), Std: time.Unix(1, 0), Both: []int{}},
		{Time: metav1.Time{}, Both: []int{1}},
	} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := written(v), keys(t, data); !slices.Equal(got, want) {
			t.Errorf("value %d: Of writes %v, encoding/json %v (%s)", i, got, want, data)
		}
	}
	// The string option is reported where it applies.
	var quoted []string
	for _, f := range Of(reflect.TypeFor[Quoted]()) {
		if f.Quoted {
			quoted = append(quoted, f.Name)
		}
	}
	if want := []string{"n", "p", "f"}; !slices.Equal(quoted, want) {
		t.Errorf("quoted fields %v, want %v", quoted, want)
	}
}

type Self struct {
	*Self
	Name string `json:"name"`
}

// A struct that embeds a pointer to itself is walked once.
func TestOfRecursiveEmbedding(t *testing.T) {
	v := Self{Self: &Self{Name: "inner"}, Name: "outer"}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := written(v), keys(t, data); !slices.Equal(got, want) {
		t.Errorf("Of writes %v, encoding/json %v", got, want)
	}
}

package regovalue

import (
	"encoding/json"
	"math/rand"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sluice-data/sluice/webhook/internal/randompod"
)

// viaJSON is the oracle: x marshalled by encoding/json and the document
// converted by ast.InterfaceToValue.
func viaJSON(t *testing.T, x any) ast.Value {
	t.Helper()
	raw, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := util.UnmarshalJSON(raw, &doc); err != nil {
		t.Fatal(err)
	}
	v, err := ast.InterfaceToValue(doc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func checkAsJSON(t *testing.T, name string, x any) {
	t.Helper()
	got, err := ToValue(x)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if want := viaJSON(t, x); got.Compare(want) != 0 {
		t.Fatalf("%s: ToValue differs from encoding/json:\n got %v\nwant %v", name, got, want)
	}
}

// ToValue gives the oracle's value for whole Pods: the fixture Pods and
// random changes of them.
func TestToValueMatchesJSONOnRandomPods(t *testing.T) {
	pods, err := randompod.Fixtures()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(4))
	for i := 0; i < 300; i++ {
		p := pods[rng.Intn(len(pods))].DeepCopy()
		for n := rng.Intn(6); n > 0; n-- {
			randompod.Perturb(rng, p)
		}
		checkAsJSON(t, "pod", p)
	}
}

// zeroWhenNegative is zero, for omitzero, by its IsZero method: a
// negative N counts as zero, and the zero value does not.
type zeroWhenNegative struct{ N int }

func (z zeroWhenNegative) IsZero() bool { return z.N < 0 }

type zeroWhenNegativePtr struct{ N int }

func (z *zeroWhenNegativePtr) IsZero() bool { return z.N < 0 }

type withOmitZero struct {
	Count    int                 `json:"count,omitzero"`
	Ptr      *string             `json:"ptr,omitzero"`
	Plain    struct{ X int }     `json:"plain,omitzero"`
	ByValue  zeroWhenNegative    `json:"byValue,omitzero"`
	ByPtr    zeroWhenNegativePtr `json:"byPtr,omitzero"`
	Time     metav1.Time         `json:"time,omitempty,omitzero"`
	Std      time.Time           `json:"std,omitzero"`
	Kept     string              `json:"kept"`
	Embedded                     // promoted: its omitzero field too
}

type Embedded struct {
	Inner int `json:"inner,omitzero"`
}

// ToValue leaves out what encoding/json's omitzero leaves out: zero values,
// and values whose IsZero method says so (metav1.Time's, as on
// ObjectMeta.CreationTimestamp). Before jsonfields, ToValue knew only
// omitempty and wrote them all.
func TestToValueOmitZeroAsEncodingJSON(t *testing.T) {
	s := ""
	for name, x := range map[string]any{
		"zero":           withOmitZero{},
		"set":            withOmitZero{Count: 1, Ptr: &s, Plain: struct{ X int }{1}, ByValue: zeroWhenNegative{0}, ByPtr: zeroWhenNegativePtr{0}, Time: metav1.Unix(1, 0), Std: time.Unix(1, 0), Embedded: Embedded{Inner: 1}},
		"zero by method": withOmitZero{ByValue: zeroWhenNegative{-1}, ByPtr: zeroWhenNegativePtr{-1}},
		"object meta":    metav1.ObjectMeta{Name: "p"},
		"pod":            &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}},
	} {
		checkAsJSON(t, name, x)
	}
}

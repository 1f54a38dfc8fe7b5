package podpatch

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// zeroWhenNegative is zero, for omitzero, by its IsZero method: a
// negative N counts as zero, and the zero value does not.
type zeroWhenNegative struct{ N int }

func (z zeroWhenNegative) IsZero() bool { return z.N < 0 }

type zeroWhenNegativePtr struct{ N int }

func (z *zeroWhenNegativePtr) IsZero() bool { return z.N < 0 }

type Embedded struct {
	Inner int `json:"inner,omitzero"`
}

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

// structDiff writes and leaves out fields as encoding/json's omitzero does
// (zero values, and values whose IsZero method says so), with the same
// jsonfields model as regovalue: every pair of these values diffs as
// marshal and jsonpatch diff them, whole and as a Pod's metadata.
func TestStructDiffOmitZeroAsEncodingJSON(t *testing.T) {
	s := ""
	values := []withOmitZero{
		{},
		{Count: 1, Ptr: &s, Plain: struct{ X int }{1}, ByValue: zeroWhenNegative{0}, ByPtr: zeroWhenNegativePtr{0}, Time: metav1.Unix(1, 0), Std: time.Unix(1, 0), Embedded: Embedded{Inner: 1}},
		{ByValue: zeroWhenNegative{-1}, ByPtr: zeroWhenNegativePtr{-1}},
		{ByValue: zeroWhenNegative{2}, Kept: "k", Embedded: Embedded{Inner: 2}},
	}
	for i, a := range values {
		for j, b := range values {
			checkSameDiff(t, fmt.Sprintf("values %d->%d", i, j), a, b, "")
		}
	}
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "p"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "p", CreationTimestamp: metav1.Unix(1, 0)}},
	}
	for i, a := range pods {
		for j, b := range pods {
			checkSameDiff(t, fmt.Sprintf("pods %d->%d", i, j), a, b, "")
		}
	}
}

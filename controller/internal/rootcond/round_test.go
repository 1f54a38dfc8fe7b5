package rootcond

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRoots: a decided root is set, an undecided one keeps its condition
// and one never decided becomes Unknown; the first that is not True, in
// order, is what Ready is told.
func TestRoots(t *testing.T) {
	r := Round{Conds: []metav1.Condition{{Type: "B", Status: metav1.ConditionFalse, Reason: "Stuck", Message: "from the last round"}},
		Generation: 3, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}
	decided := map[string]Verdict{"A": {metav1.ConditionTrue, "Fine", "a is fine"}}
	first := r.Roots([]string{"A", "B", "C"}, func(typ string) (Verdict, bool) { v, ok := decided[typ]; return v, ok })
	if first == nil || *first != (Verdict{metav1.ConditionFalse, "Stuck", "from the last round"}) {
		t.Errorf("first not True = %+v, want B's False Stuck", first)
	}
	if a := meta.FindStatusCondition(r.Conds, "A"); a == nil || a.Reason != "Fine" || a.ObservedGeneration != 3 {
		t.Errorf("A = %+v, want the decided verdict at generation 3", a)
	}
	if c := meta.FindStatusCondition(r.Conds, "C"); c == nil || c.Status != metav1.ConditionUnknown || c.Reason != ReasonPending {
		t.Errorf("C = %+v, want Unknown %s", c, ReasonPending)
	}
	decided["B"] = Verdict{metav1.ConditionTrue, "Fine", ""}
	decided["C"] = Verdict{metav1.ConditionTrue, "Fine", ""}
	if first := r.Roots([]string{"A", "B", "C"}, func(typ string) (Verdict, bool) { v, ok := decided[typ]; return v, ok }); first != nil {
		t.Errorf("every root True, yet %+v", first)
	}
}

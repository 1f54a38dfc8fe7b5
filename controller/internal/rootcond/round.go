package rootcond

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// ReasonPending is the reason of a root condition never decided.
const ReasonPending = "Pending"

// Verdict is a condition's status, reason and message as a reconcile
// decides them.
type Verdict struct {
	Status          metav1.ConditionStatus
	Reason, Message string
}

// Round is one reconcile's writes to a list of conditions.
type Round struct {
	// Conds are the conditions, changed in place by Set.
	Conds []metav1.Condition
	// Generation is the generation observed, Now the time of the round.
	Generation int64
	Now        time.Time
}

// Set sets condition typ to v (its message cut to the condition bound).
func (r *Round) Set(typ string, v Verdict) {
	meta.SetStatusCondition(&r.Conds, metav1.Condition{Type: typ, Status: v.Status, Reason: v.Reason,
		Message: datav1alpha1.ConditionMessage(v.Message), ObservedGeneration: r.Generation, LastTransitionTime: metav1.NewTime(r.Now)})
}

// Roots sets each of types, in order, to what decided says of it; one this
// round did not decide keeps its condition, and one never decided is set
// Unknown (ReasonPending). It returns the first that is not True, as a
// False verdict with its reason and message, or nil when all are True.
func (r *Round) Roots(types []string, decided func(typ string) (Verdict, bool)) *Verdict {
	var first *Verdict
	for _, typ := range types {
		v, ok := decided(typ)
		if ok {
			r.Set(typ, v)
		} else if c := meta.FindStatusCondition(r.Conds, typ); c != nil {
			v = Verdict{c.Status, c.Reason, c.Message}
		} else {
			v = Verdict{metav1.ConditionUnknown, ReasonPending, "not evaluated yet"}
			r.Set(typ, v)
		}
		if first == nil && v.Status != metav1.ConditionTrue {
			first = &Verdict{metav1.ConditionFalse, v.Reason, v.Message}
		}
	}
	return first
}

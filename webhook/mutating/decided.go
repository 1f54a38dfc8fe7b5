package mutating

import (
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
	"github.com/sluice-data/sluice/webhook/policy"
)

// Decided is a policy decision with what its enforcement needs that depends
// on the decision alone: which mutation rules have something to do, what
// each does (the verdicts' messages) and the mutations annotation when
// every one of them applies. It is worked out once per evaluation and
// remembered with the decision, so a Pod whose decision the Memo hands back
// does not describe it again. It is shared: nothing may modify it.
type Decided struct {
	decision   *decision.Mutating
	present    [len(mutationRules)]bool
	described  [len(mutationRules)]string
	annotation string
}

// newDecided describes d.
func newDecided(d *decision.Mutating) *Decided {
	dd := &Decided{decision: d}
	var applied []enforcement.Verdict
	for i, r := range mutationRules {
		if !r.present(d) {
			continue
		}
		dd.present[i], dd.described[i] = true, r.describe(d)
		applied = append(applied, enforcement.Verdict{Rule: r.name, Outcome: enforcement.Applied, Message: dd.described[i]})
	}
	dd.annotation = mutationsAnnotation(applied)
	return dd
}

// NewMemo returns a memo of decisions for Pipeline.Memo (policy.NewMemo).
func NewMemo(max int, maxBytes int64) *policy.Memo[*Decided] {
	return policy.NewMemo[*Decided](max, maxBytes)
}

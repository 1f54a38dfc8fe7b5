package mutating

import (
	"strings"

	"github.com/sluice-data/sluice/webhook/decision"
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

// newDecided describes d: the mutations annotation with every rule
// applied, whose parts are the rules' descriptions.
func newDecided(d *decision.Mutating) *Decided {
	dd := &Decided{decision: d}
	var (
		b     strings.Builder
		spans [len(mutationRules)][2]int
	)
	for i, r := range mutationRules {
		if !r.present(d) {
			continue
		}
		writeRule(&b, r.name)
		spans[i][0] = b.Len()
		r.describe(&b, d)
		spans[i][1] = b.Len()
		dd.present[i] = true
	}
	s := b.String()
	for i, sp := range spans {
		if dd.present[i] {
			dd.described[i] = s[sp[0]:sp[1]]
		}
	}
	dd.annotation = bounded(s)
	return dd
}

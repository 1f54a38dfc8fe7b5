package decision

import (
	"time"

	"github.com/sluice-data/sluice/policies/enforcement"
)

// EnforceDenials applies the enforcement policy p to a decision's denials
// for obj at now: the denials that stand (mode deny), the admission
// warnings of those in warn mode, and a verdict for every denial.
func EnforceDenials(p *enforcement.Policy, deny []Denial, obj enforcement.Object, now time.Time) (kept []Denial, warnings []string, verdicts []enforcement.Verdict) {
	if len(deny) == 0 {
		return nil, nil, nil
	}
	verdicts = make([]enforcement.Verdict, 0, len(deny))
	for _, d := range deny {
		v := p.Judge(d.Rule, d.Message, obj, now)
		verdicts = append(verdicts, v)
		switch v.Outcome {
		case enforcement.Denied:
			kept = append(kept, d)
		case enforcement.Warned:
			warnings = append(warnings, enforcement.WarningOf(v))
		}
	}
	return kept, warnings, verdicts
}

// Rules are the rules of the denials, in order.
func (e *DeniedError) Rules() []string {
	out := make([]string, len(e.Denials))
	for i, d := range e.Denials {
		out[i] = d.Rule
	}
	return out
}

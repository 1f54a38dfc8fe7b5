package mutating

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
)

// mutationRule is one part of the mutating decision, the unit a mode or an
// exception applies to (enforcement.MutationRules).
type mutationRule struct {
	name     string
	present  func(d *decision.Mutating) bool
	describe func(d *decision.Mutating) string
	clear    func(d *decision.Mutating)
}

// mutationRules are the parts of the decision, by rule name.
var mutationRules = [...]mutationRule{
	{
		name: enforcement.RuleAffinity,
		present: func(d *decision.Mutating) bool {
			return len(d.Affinity.Required) > 0 || len(d.Affinity.RequiredTerms) > 0 || len(d.Affinity.Preferred) > 0
		},
		describe: describeAffinity,
		clear:    func(d *decision.Mutating) { d.Affinity = decision.Affinity{} },
	},
	{
		name:    enforcement.RuleAppPostStart,
		present: func(d *decision.Mutating) bool { return len(d.AppPostStart) > 0 },
		describe: func(d *decision.Mutating) string {
			var out []string
			for _, a := range d.AppPostStart {
				out = append(out, "postStart hook on container "+a.Container)
			}
			return strings.Join(out, ", ")
		},
		clear: func(d *decision.Mutating) { d.AppPostStart = nil },
	},
	{
		name:    enforcement.RuleMountPropagation,
		present: func(d *decision.Mutating) bool { return len(d.MountPropagation) > 0 },
		describe: func(d *decision.Mutating) string {
			var out []string
			for _, m := range d.MountPropagation {
				out = append(out, fmt.Sprintf("%s on volume %s", m.Mode, m.Volume))
			}
			return strings.Join(out, ", ")
		},
		clear: func(d *decision.Mutating) { d.MountPropagation = nil },
	},
	{
		name:    enforcement.RulePodMetadata,
		present: func(d *decision.Mutating) bool { return len(d.Annotations) > 0 || len(d.Labels) > 0 },
		describe: func(d *decision.Mutating) string {
			var out []string
			for _, k := range slices.Sorted(maps.Keys(d.Annotations)) {
				out = append(out, "annotation "+k)
			}
			for _, k := range slices.Sorted(maps.Keys(d.Labels)) {
				out = append(out, "label "+k)
			}
			return strings.Join(out, ", ")
		},
		clear: func(d *decision.Mutating) { d.Annotations, d.Labels = nil, nil },
	},
	{
		name:    enforcement.RuleSidecar,
		present: func(d *decision.Mutating) bool { return len(d.Sidecars) > 0 || len(d.VolumeRewrites) > 0 },
		describe: func(d *decision.Mutating) string {
			var out []string
			served := map[string]bool{}
			for _, s := range d.Sidecars {
				served[s.Volume] = true
				out = append(out, fmt.Sprintf("FUSE sidecar for volume %s (dataset %s)", s.Volume, s.Dataset))
			}
			for _, rw := range d.VolumeRewrites {
				if !served[rw.Volume] {
					out = append(out, fmt.Sprintf("volume %s as hostPath %s", rw.Volume, rw.HostPath))
				}
			}
			return strings.Join(out, ", ")
		},
		clear: func(d *decision.Mutating) { d.Sidecars, d.VolumeRewrites = nil, nil },
	},
}

func describeAffinity(d *decision.Mutating) string {
	var req, pref []string
	for _, r := range d.Affinity.Required {
		req = append(req, r.Key)
	}
	for _, t := range d.Affinity.RequiredTerms {
		req = append(req, termKeys(t))
	}
	for _, p := range d.Affinity.Preferred {
		pref = append(pref, fmt.Sprintf("%s (%d)", termKeys(p.Preference), p.Weight))
	}
	var out []string
	if len(req) > 0 {
		out = append(out, "required "+strings.Join(req, ", "))
	}
	if len(pref) > 0 {
		out = append(out, "preferred "+strings.Join(pref, ", "))
	}
	return strings.Join(out, "; ")
}

func termKeys(t corev1.NodeSelectorTerm) string {
	var keys []string
	for _, r := range t.MatchExpressions {
		keys = append(keys, r.Key)
	}
	for _, r := range t.MatchFields {
		keys = append(keys, r.Key)
	}
	return strings.Join(keys, "+")
}

// enforce applies the enforcement policy p to the decision dd (shared:
// it is not modified) for obj at now. Denials not enforced are dropped,
// those in warn mode become warnings; unless checkOnly, or the Pod is
// still denied, the parts of the decision whose mutation rule is in dryrun
// or excepted are dropped. It returns the decision to apply, a verdict for
// each denial and each mutation rule with something to do, and the
// mutations annotation of the rules applied.
func enforce(p *enforcement.Policy, dd *Decided, obj enforcement.Object, now time.Time, checkOnly bool) (*decision.Mutating, []enforcement.Verdict, string) {
	d := dd.decision
	kept, warned, verdicts := decision.EnforceDenials(p, d.Deny, obj, now)
	out := *d
	out.Deny = kept
	if len(warned) > 0 {
		out.Warnings = append(slices.Clone(d.Warnings), warned...)
	}
	if checkOnly || len(kept) > 0 {
		return &out, verdicts, ""
	}
	dropped := false
	for i, r := range mutationRules {
		if !dd.present[i] {
			continue
		}
		v := p.Judge(r.name, dd.described[i], obj, now)
		verdicts = append(verdicts, v)
		if v.Outcome != enforcement.Applied {
			r.clear(&out)
			dropped = true
		}
	}
	if !dropped {
		return &out, verdicts, dd.annotation
	}
	return &out, verdicts, mutationsAnnotation(verdicts)
}

// maxMutationsAnnotation bounds the annotation's value.
const maxMutationsAnnotation = 4096

// mutationsAnnotation is the value of AnnotationMutations: what each
// applied mutation rule injected, "" if none.
func mutationsAnnotation(verdicts []enforcement.Verdict) string {
	var parts []string
	for _, v := range verdicts {
		if v.Outcome == enforcement.Applied {
			parts = append(parts, v.Rule+": "+v.Message)
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > maxMutationsAnnotation {
		s = s[:maxMutationsAnnotation] + "…"
	}
	return s
}

package mutating

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
)

// mutationRule is one part of the mutating decision, the unit a mode or an
// exception applies to (enforcement.MutationRules).
type mutationRule struct {
	name    string
	present func(d *decision.Mutating) bool
	// describe writes what the rule injects.
	describe func(b *strings.Builder, d *decision.Mutating)
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
		describe: func(b *strings.Builder, d *decision.Mutating) {
			for i, a := range d.AppPostStart {
				writeItem(b, i, "postStart hook on container ", a.Container)
			}
		},
		clear: func(d *decision.Mutating) { d.AppPostStart = nil },
	},
	{
		name:    enforcement.RuleMountPropagation,
		present: func(d *decision.Mutating) bool { return len(d.MountPropagation) > 0 },
		describe: func(b *strings.Builder, d *decision.Mutating) {
			for i, m := range d.MountPropagation {
				writeItem(b, i, string(m.Mode), " on volume ", m.Volume)
			}
		},
		clear: func(d *decision.Mutating) { d.MountPropagation = nil },
	},
	{
		name:    enforcement.RulePodMetadata,
		present: func(d *decision.Mutating) bool { return len(d.Annotations) > 0 || len(d.Labels) > 0 },
		describe: func(b *strings.Builder, d *decision.Mutating) {
			n := 0
			for _, k := range sortedKeys(d.Annotations) {
				writeItem(b, n, "annotation ", k)
				n++
			}
			for _, k := range sortedKeys(d.Labels) {
				writeItem(b, n, "label ", k)
				n++
			}
		},
		clear: func(d *decision.Mutating) { d.Annotations, d.Labels = nil, nil },
	},
	{
		name:    enforcement.RuleSidecar,
		present: func(d *decision.Mutating) bool { return len(d.Sidecars) > 0 || len(d.VolumeRewrites) > 0 },
		describe: func(b *strings.Builder, d *decision.Mutating) {
			n := 0
			for _, s := range d.Sidecars {
				writeItem(b, n, "FUSE sidecar for volume ", s.Volume, " (dataset ", s.Dataset, ")")
				n++
			}
			for _, rw := range d.VolumeRewrites {
				if !slices.ContainsFunc(d.Sidecars, func(s decision.Sidecar) bool { return s.Volume == rw.Volume }) {
					writeItem(b, n, "volume ", rw.Volume, " as hostPath ", rw.HostPath)
					n++
				}
			}
		},
		clear: func(d *decision.Mutating) { d.Sidecars, d.VolumeRewrites = nil, nil },
	},
}

// describeAffinity writes "required <keys>; preferred <keys> (<weight>)",
// a term's keys joined by "+".
func describeAffinity(b *strings.Builder, d *decision.Mutating) {
	n := 0
	for _, r := range d.Affinity.Required {
		writeItem(b, n, "")
		if n == 0 {
			b.WriteString("required ")
		}
		b.WriteString(r.Key)
		n++
	}
	for _, t := range d.Affinity.RequiredTerms {
		writeItem(b, n, "")
		if n == 0 {
			b.WriteString("required ")
		}
		writeTermKeys(b, t)
		n++
	}
	var num [20]byte
	for i, p := range d.Affinity.Preferred {
		switch {
		case i > 0:
			b.WriteString(", ")
		case n > 0:
			b.WriteString("; preferred ")
		default:
			b.WriteString("preferred ")
		}
		writeTermKeys(b, p.Preference)
		b.WriteString(" (")
		b.Write(strconv.AppendInt(num[:0], int64(p.Weight), 10))
		b.WriteString(")")
	}
}

func writeTermKeys(b *strings.Builder, t corev1.NodeSelectorTerm) {
	n := 0
	for _, r := range t.MatchExpressions {
		if n > 0 {
			b.WriteString("+")
		}
		b.WriteString(r.Key)
		n++
	}
	for _, r := range t.MatchFields {
		if n > 0 {
			b.WriteString("+")
		}
		b.WriteString(r.Key)
		n++
	}
}

// writeItem writes the i-th item of a list joined by ", ": the parts.
func writeItem(b *strings.Builder, i int, parts ...string) {
	if i > 0 {
		b.WriteString(", ")
	}
	for _, p := range parts {
		b.WriteString(p)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	if len(m) == 1 {
		for k := range m {
			return []string{k}
		}
	}
	return slices.Sorted(maps.Keys(m))
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
	var b strings.Builder
	for _, v := range verdicts {
		if v.Outcome == enforcement.Applied {
			writeRule(&b, v.Rule)
			b.WriteString(v.Message)
		}
	}
	return bounded(b.String())
}

// writeRule starts a rule's part of the mutations annotation.
func writeRule(b *strings.Builder, rule string) {
	if b.Len() > 0 {
		b.WriteString("; ")
	}
	b.WriteString(rule)
	b.WriteString(": ")
}

// bounded is the mutations annotation s cut at maxMutationsAnnotation.
func bounded(s string) string {
	if len(s) > maxMutationsAnnotation {
		s = s[:maxMutationsAnnotation] + "…"
	}
	return s
}

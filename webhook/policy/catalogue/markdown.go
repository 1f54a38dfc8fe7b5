package catalogue

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/engines/registry"
	"github.com/sluice-data/sluice/webhook/policy"
)

// The markers around the generated rule reference in docs/policies.md.
const (
	BeginMarker = "<!-- BEGIN rule reference: generated from the default policies by `make generate` (sluice policy rules --format markdown); do not edit -->"
	EndMarker   = "<!-- END rule reference -->"
)

// Markdown renders the catalogue as two tables, the deny rules and the
// mutation rules.
func Markdown(rules []Rule) string {
	var b strings.Builder
	for i, kind := range []string{KindDeny, KindMutation} {
		if i > 0 {
			b.WriteString("\n")
		}
		title := "Deny rules"
		if kind == KindMutation {
			title = "Mutation rules"
		}
		fmt.Fprintf(&b, "#### %s\n\n| rule | judges | modes | data keys | what it does | module |\n|---|---|---|---|---|---|\n", title)
		for _, r := range rules {
			if r.Kind != kind {
				continue
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r.Name, cell(Judges(r)), cell(ModeSummary(r)),
				code(r.DataKeys), cell(Describe(r)), code(r.Modules))
		}
	}
	return b.String()
}

// Judges says which webhook judges the rule, and what.
func Judges(r Rule) string {
	objects := "every object"
	if len(r.Objects) > 0 {
		objects = strings.Join(r.Objects, ", ")
	}
	if r.Admission == Both {
		return "both webhooks: " + objects
	}
	return r.Admission + ": " + objects
}

// ModeSummary lists the rule's modes, the default first, and what the
// policy data sets: its mode, namespace modes and exceptions.
func ModeSummary(r Rule) string {
	modes := make([]string, len(r.Modes))
	for i, m := range r.Modes {
		modes[i] = string(m)
		if m == r.DefaultMode {
			modes[i] += " (default)"
		}
	}
	out := strings.Join(modes, ", ")
	if set := Enforced(r); set != "" {
		out += "; " + set
	}
	return out
}

// Enforced says what the policy data's enforcement section sets for the
// rule; "" for nothing.
func Enforced(r Rule) string {
	var parts []string
	if r.Mode != r.DefaultMode {
		parts = append(parts, "set: "+string(r.Mode))
	}
	for _, ns := range slices.Sorted(maps.Keys(r.NamespaceModes)) {
		parts = append(parts, fmt.Sprintf("in %s: %s", ns, r.NamespaceModes[ns]))
	}
	if len(r.Exceptions) > 0 {
		parts = append(parts, "exceptions: "+strings.Join(r.Exceptions, ", "))
	}
	return strings.Join(parts, "; ")
}

// Describe is the rule's description, with a note when the controller
// checks it too.
func Describe(r Rule) string {
	d := r.Description
	if r.Reconcile {
		d += " Also checked by the controller at reconcile, before it deploys (trust/guardcheck)."
	}
	return d
}

func code(items []string) string {
	if len(items) == 0 {
		return ""
	}
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, "<br>")
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Splice replaces what lies between the markers in doc with the
// catalogue's Markdown.
func Splice(doc string, rules []Rule) (string, error) {
	return registry.SpliceBetween(doc, BeginMarker, EndMarker, Markdown(rules))
}

// SpliceDefault splices the catalogue of the default policies (the
// restricted profile's data) into doc: docs/policies.md's reference.
func SpliceDefault(doc string) (string, error) {
	b, err := policy.DefaultBundle()
	if err != nil {
		return "", err
	}
	rules, err := Build(b)
	if err != nil {
		return "", err
	}
	return Splice(doc, rules)
}

package policycmd

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/open-policy-agent/opa/v1/cover"

	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/policy/catalogue"
)

// coverage is what a bundle's tests and cases exercised of its rules:
// for each rule, how many cases made it fire (a deny rule found
// something, a mutation rule had something to change) and which of its
// lines the Rego tests reached (OPA's cover), and the line coverage of
// each module.
type coverage struct {
	// Bundle names the bundle: "embedded", or the policy directories.
	Bundle string         `json:"bundle"`
	Rules  []ruleCoverage `json:"rules"`
	// NeverExercised are the rules no case made fire and no Rego test
	// reached the end of (its head).
	NeverExercised []string         `json:"neverExercised,omitempty"`
	Modules        []moduleCoverage `json:"modules"`
}

type ruleCoverage struct {
	Rule string `json:"rule"`
	Kind string `json:"kind"`
	// Own: the bundle's own modules define it (the others' rules are
	// listed when its cases made them fire).
	Own bool `json:"own"`
	// Cases is the number of cases that made the rule fire.
	Cases int `json:"cases"`
	// Tests: a Rego test reached the head of one of its definitions of
	// the bundle's own modules.
	Tests bool `json:"tests"`
	// Lines are the lines of those definitions that hold an expression,
	// CoveredLines those the Rego tests evaluated.
	Lines        int `json:"lines"`
	CoveredLines int `json:"coveredLines"`
}

type moduleCoverage struct {
	Module          string  `json:"module"`
	CoveredLines    int     `json:"coveredLines"`
	NotCoveredLines int     `json:"notCoveredLines"`
	Percent         float64 `json:"percent"`
}

// coverageOf gathers one bundle's coverage: fired counts the cases that
// made each rule fire, report is the Rego tests' line coverage. own says
// whether a module is the bundle's own (the embedded ones for the
// defaults, a directory's for a group): its rules and modules are
// reported, and any other rule a case made fire.
func coverageOf(name string, b *policy.Bundle, fired map[string]int, report cover.Report, own func(module string) bool) (coverage, error) {
	rules, err := catalogue.Build(b)
	if err != nil {
		return coverage{}, err
	}
	out := coverage{Bundle: name}
	for _, r := range rules {
		if fired[r.Name] == 0 && !slices.ContainsFunc(r.Definitions, func(d catalogue.Definition) bool { return own(d.Module) }) {
			continue
		}
		rc := ruleCoverage{Rule: r.Name, Kind: r.Kind, Cases: fired[r.Name]}
		for _, d := range r.Definitions {
			if !own(d.Module) {
				continue // another bundle's tests cover it
			}
			rc.Own = true
			fr := report.Files[d.Module]
			rc.Tests = rc.Tests || fr.IsCovered(d.Row)
			for row := d.Row; row <= d.LastRow; row++ {
				switch {
				case fr.IsCovered(row):
					rc.Lines++
					rc.CoveredLines++
				case fr.IsNotCovered(row):
					rc.Lines++
				}
			}
		}
		if rc.Own && rc.Cases == 0 && !rc.Tests {
			out.NeverExercised = append(out.NeverExercised, r.Name)
		}
		out.Rules = append(out.Rules, rc)
	}
	for _, id := range slices.Sorted(maps.Keys(report.Files)) {
		if fr := report.Files[id]; own(id) {
			out.Modules = append(out.Modules, moduleCoverage{Module: id, CoveredLines: fr.CoveredLines, NotCoveredLines: fr.NotCoveredLines, Percent: fr.Coverage})
		}
	}
	return out, nil
}

// printCoverage writes a bundle's coverage as text.
func printCoverage(out io.Writer, c coverage) error {
	fmt.Fprintf(out, "\ncoverage of %s: the cases that made each rule fire; the lines of it the Rego tests reached\n", c.Bundle)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "  RULE\tKIND\tCASES\tREGO TESTS\tLINES")
	for _, r := range c.Rules {
		tests, lines := "-", "-"
		if r.Own {
			tests, lines = "no", fmt.Sprintf("%d/%d", r.CoveredLines, r.Lines)
			if r.Tests {
				tests = "yes"
			}
		}
		fmt.Fprintf(w, "  %s\t%s\t%d\t%s\t%s\n", r.Rule, r.Kind, r.Cases, tests, lines)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(c.NeverExercised) > 0 {
		fmt.Fprintf(out, "  never exercised (no case makes it fire, no Rego test reaches it): %s\n", strings.Join(c.NeverExercised, ", "))
	}
	if len(c.Modules) == 0 {
		return nil
	}
	fmt.Fprintln(out, "  lines covered by the Rego tests:")
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, m := range c.Modules {
		fmt.Fprintf(w, "    %s\t%.1f%%\t(%d/%d)\n", m.Module, m.Percent, m.CoveredLines, m.CoveredLines+m.NotCoveredLines)
	}
	return w.Flush()
}

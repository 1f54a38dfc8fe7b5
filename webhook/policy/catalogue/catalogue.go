package catalogue

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/trust/guardcheck"
	"github.com/sluice-data/sluice/webhook/policy"
)

// Kinds of rules.
const (
	// KindDeny refuses an object (or warns, in warn mode).
	KindDeny = "deny"
	// KindMutation changes a Pod.
	KindMutation = "mutation"
)

// The admissions a rule belongs to.
const (
	// Validating is the validating webhook: Datasets, runtimes, data
	// operations.
	Validating = "validating"
	// Mutating is the mutating webhook: Pods (and, as a dry run, the Pod
	// templates of workloads).
	Mutating = "mutating"
	// Both: a rule name emitted by both webhooks' policies.
	Both = "both"
)

// packages are the Rego packages whose decisions the webhooks read, by
// admission.
var packages = map[string]ast.Ref{
	Validating: ast.MustParseRef("data.sluice.validating"),
	Mutating:   ast.MustParseRef("data.sluice.mutating"),
}

// mutationParts are the keys of the mutating decision document each
// mutation rule is (webhook/mutating's mutationRules act on the same
// parts, decoded).
var mutationParts = map[string][]string{
	enforcement.RuleAffinity:         {"affinity"},
	enforcement.RuleAppPostStart:     {"appPostStart"},
	enforcement.RuleMountPropagation: {"mountPropagation"},
	enforcement.RulePodMetadata:      {"annotations", "labels"},
	enforcement.RuleSidecar:          {"sidecars", "volumeRewrites"},
}

// Rule is one rule of the catalogue.
type Rule struct {
	Name string `json:"name"`
	// Kind is KindDeny or KindMutation.
	Kind string `json:"kind"`
	// Admission is Validating, Mutating or Both.
	Admission string `json:"admission"`
	// Objects are the kinds of object the rule judges, where its
	// definitions state them (input.kind); none: every kind its webhook
	// judges.
	Objects []string `json:"objects,omitempty"`
	// DataKeys are the policy data keys (under data.sluice.config) the
	// rule reads, "*" standing for any key (a namespace, a kind).
	DataKeys []string `json:"dataKeys,omitempty"`
	// Description is the METADATA description of its definitions.
	Description string `json:"description"`
	// Modules are the files that define it (with their source when not
	// the embedded defaults).
	Modules []string `json:"modules"`
	// Reconcile: the controller also checks the rule before it deploys a
	// runtime (trust/guardcheck).
	Reconcile bool `json:"reconcile,omitempty"`
	// DefaultMode and Modes are the rule's default mode and the modes it
	// may have (policies/enforcement).
	DefaultMode enforcement.Mode   `json:"defaultMode"`
	Modes       []enforcement.Mode `json:"modes"`
	// Mode, NamespaceModes and Exceptions are what the bundle's policy data
	// sets for it (the enforcement section): its mode, the namespaces
	// that override it, and the exceptions that name it.
	Mode           enforcement.Mode            `json:"mode"`
	NamespaceModes map[string]enforcement.Mode `json:"namespaceModes,omitempty"`
	Exceptions     []string                    `json:"exceptions,omitempty"`
	// Definitions are where the rule is defined, for coverage.
	Definitions []Definition `json:"-"`
}

// Definition is the lines of one definition of a rule.
type Definition struct {
	Module       string
	Row, LastRow int
}

// Build returns the catalogue of the bundle's rules, sorted by name:
// its deny rules (from the compiled modules) and the mutation rules.
func Build(b *policy.Bundle) ([]Rule, error) {
	c, _, err := policy.CompileModules(b)
	if err != nil {
		return nil, err
	}
	p, err := enforcement.Parse(b.Data[enforcement.Key])
	if err != nil {
		return nil, fmt.Errorf("policy data %w", err)
	}
	w := newWalker(c)
	found := map[string]*entry{}
	get := func(name, kind string) *entry {
		e, ok := found[name]
		if !ok {
			e = &entry{name: name, kind: kind, admissions: map[string]bool{}}
			found[name] = e
		}
		return e
	}
	for _, admission := range slices.Sorted(maps.Keys(packages)) {
		pkg := packages[admission]
		for _, r := range c.GetRulesExact(pkg.Append(ast.StringTerm("deny"))) {
			name, ok := w.denyName(r)
			if !ok {
				return nil, fmt.Errorf("%s: a deny rule whose rule name is not a string in the module (give deny_at, or the \"rule\" key, a string)", location(r))
			}
			e := get(name, KindDeny)
			e.admissions[admission] = true
			e.add(w, r, admission == Mutating)
		}
	}
	decision := c.GetRulesExact(packages[Mutating].Append(ast.StringTerm("decision")))
	for _, name := range enforcement.MutationRules {
		e := get(name, KindMutation)
		e.admissions[Mutating] = true
		for _, r := range w.decisionParts(decision, mutationParts[name]) {
			e.add(w, r, true)
		}
	}
	reconcile := guardcheck.Rules()
	out := make([]Rule, 0, len(found))
	for _, name := range slices.Sorted(maps.Keys(found)) {
		r := found[name].rule(b)
		r.Reconcile = slices.Contains(reconcile, name)
		r.DefaultMode, r.Modes = enforcement.DefaultMode(name), enforcement.Modes(name)
		r.Mode = r.DefaultMode
		if set, ok := p.Rules[name]; ok {
			if set.Mode != "" {
				r.Mode = set.Mode
			}
			if len(set.Namespaces) > 0 {
				r.NamespaceModes = set.Namespaces
			}
		}
		for _, ex := range slices.Sorted(maps.Keys(p.Exceptions)) {
			if slices.Contains(p.Exceptions[ex].Rules, name) {
				r.Exceptions = append(r.Exceptions, ex)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// entry gathers a rule's definitions.
type entry struct {
	name, kind   string
	admissions   map[string]bool
	descriptions []string
	modules      []string
	definitions  []Definition
	keys         []path
	// objects are the kinds its definitions judge; anyObject: one of them
	// states none (or judges Pods).
	objects   map[string]bool
	anyObject bool
	pods      bool
}

func (e *entry) add(w *walker, r *ast.Rule, pods bool) {
	for _, a := range r.Annotations {
		if d := strings.TrimSpace(a.Description); d != "" && !slices.Contains(e.descriptions, d) {
			e.descriptions = append(e.descriptions, d)
		}
	}
	if f := r.Location.File; !slices.Contains(e.modules, f) {
		e.modules = append(e.modules, f)
	}
	e.definitions = append(e.definitions, Definition{Module: r.Location.File, Row: r.Location.Row,
		LastRow: r.Location.Row + strings.Count(string(r.Location.Text), "\n")})
	e.keys = append(e.keys, w.keysOf(r)...)
	if pods {
		e.pods = true
		return
	}
	kinds, ok := w.kindsOf(r)
	if !ok {
		e.anyObject = true
		return
	}
	if e.objects == nil {
		e.objects = map[string]bool{}
	}
	for k := range kinds {
		e.objects[k] = true
	}
}

func (e *entry) rule(b *policy.Bundle) Rule {
	r := Rule{Name: e.name, Kind: e.kind, Description: strings.Join(e.descriptions, " "), DataKeys: keyStrings(e.keys, b.Data),
		Definitions: e.definitions}
	switch {
	case len(e.admissions) > 1:
		r.Admission = Both
	case e.admissions[Mutating]:
		r.Admission = Mutating
	default:
		r.Admission = Validating
	}
	if e.pods {
		r.Objects = append(r.Objects, "Pod")
	}
	if !e.anyObject {
		r.Objects = append(r.Objects, slices.Sorted(maps.Keys(e.objects))...)
	}
	if e.anyObject && e.pods {
		r.Objects = nil
	}
	slices.Sort(r.Objects)
	slices.SortFunc(e.modules, func(a, b string) int { return cmp.Compare(a, b) })
	for _, m := range e.modules {
		if src := b.Sources[m]; src != "" && src != "embedded" {
			m += " (" + src + ")"
		}
		r.Modules = append(r.Modules, m)
	}
	return r
}

func location(r *ast.Rule) string {
	if r.Location == nil {
		return r.Head.Ref().String()
	}
	return fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
}

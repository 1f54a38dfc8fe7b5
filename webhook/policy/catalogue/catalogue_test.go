package catalogue_test

import (
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/policy"
	"github.com/sluice-data/sluice/webhook/policy/catalogue"
)

func defaults(t *testing.T) []catalogue.Rule {
	t.Helper()
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := catalogue.Build(b)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

func byName(rules []catalogue.Rule) map[string]catalogue.Rule {
	out := map[string]catalogue.Rule{}
	for _, r := range rules {
		out[r.Name] = r
	}
	return out
}

// emitted are the rule names the default modules' source gives as a
// string: deny_at's first argument, or an object's "rule" (read from the
// parsed modules, not as the catalogue reads the compiled ones).
func emitted(t *testing.T) []string {
	t.Helper()
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	modules, err := policy.ParseModules(b, false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range modules {
		ast.WalkTerms(m, func(term *ast.Term) bool {
			switch v := term.Value.(type) {
			case ast.Call:
				if v[0].String() == "deny_at" {
					if s, ok := v[1].Value.(ast.String); ok {
						seen[string(s)] = true
					}
				}
			case ast.Object:
				if f := v.Get(ast.StringTerm("rule")); f != nil {
					if s, ok := f.Value.(ast.String); ok {
						seen[string(s)] = true
					}
				}
			}
			return false
		})
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestEveryEmittedRuleIsCatalogued: every rule a default module emits,
// and every mutation rule, is in the catalogue with a description, so a
// new rule without a METADATA description fails here.
func TestEveryEmittedRuleIsCatalogued(t *testing.T) {
	rules := byName(defaults(t))
	names := emitted(t)
	if len(names) < 40 {
		t.Fatalf("found only %d emitted rule names: %v", len(names), names)
	}
	for _, n := range append(names, enforcement.MutationRules...) {
		r, ok := rules[n]
		switch {
		case !ok:
			t.Errorf("rule %s is not in the catalogue", n)
		case r.Description == "":
			t.Errorf("rule %s has no description (a METADATA block with a description above one of its definitions)", n)
		case len(r.Modules) == 0:
			t.Errorf("rule %s names no module", n)
		}
	}
	if len(rules) != len(names)+len(enforcement.MutationRules) {
		t.Errorf("the catalogue has %d rules, the modules emit %d and there are %d mutation rules", len(rules), len(names), len(enforcement.MutationRules))
	}
}

// TestRulesAreReadFromTheAST: names, kinds of object, data keys, modules
// and modes as the modules and policies/enforcement state them.
func TestRulesAreReadFromTheAST(t *testing.T) {
	rules := byName(defaults(t))
	for _, tc := range []struct {
		name      string
		kind      string
		admission string
		objects   []string // the kinds of object it judges
		keys      []string // its data keys
		module    string
		reconcile bool
	}{
		{"toleration", catalogue.KindDeny, catalogue.Validating,
			[]string{"DataLoad", "DataMigrate", "DataProcess", "Dataset", "JindoRuntime"},
			[]string{"validating.guards.*.reservedTaints"}, "validating/guards_pods.rego", true},
		{"process-privilege", catalogue.KindDeny, catalogue.Validating, []string{"DataProcess"},
			[]string{"validating.guards.*.processPrivileges"}, "validating/guards_pods.rego", true},
		{"tieredstore-path", catalogue.KindDeny, catalogue.Validating,
			[]string{"AlluxioRuntime", "JindoRuntime", "JuiceFSRuntime", "ThinRuntime"},
			[]string{"validating.guards.*.reservedHostPaths", "validating.guards.*.tieredstorePaths"}, "validating/guards.rego", true},
		{"host-path-volume", catalogue.KindDeny, catalogue.Validating,
			[]string{"AlluxioRuntime", "DataProcess", "JindoRuntime", "JuiceFSRuntime", "ThinRuntime"},
			[]string{"validating.guards.*.hostPathVolumes", "validating.guards.*.reservedHostPaths"}, "validating/guards.rego", true},
		// reference.error reads the rule reference, defined for Datasets.
		{"reference-form", catalogue.KindDeny, catalogue.Validating, []string{"Dataset"}, nil, "validating/references.rego", false},
		{"mount-scheme", catalogue.KindDeny, catalogue.Validating, []string{"Dataset"}, []string{"validating.mountSchemes"}, "validating/names.rego", false},
		{"namespace-cache-budget", catalogue.KindDeny, catalogue.Validating,
			[]string{"AlluxioRuntime", "JindoRuntime", "JuiceFSRuntime", "ThinRuntime"}, []string{"validating.budgets"}, "validating/tieredstore.rego", false},
		{"dataset-cross-namespace", catalogue.KindDeny, catalogue.Mutating, []string{"Pod"}, []string{"mutating.crossNamespace.allow"}, "mutating/admission.rego", false},
		{"cross-namespace-sidecar-image", catalogue.KindDeny, catalogue.Mutating, []string{"Pod"}, []string{"validating.guards.*.imagePrefixes"}, "mutating/crossnamespace.rego", false},
		{"mount-propagation", catalogue.KindMutation, catalogue.Mutating, []string{"Pod"}, []string{"mutating.mountPropagation.enabled"}, "mutating/volumes.rego", false},
		{"app-poststart", catalogue.KindMutation, catalogue.Mutating, []string{"Pod"}, []string{"mutating.appPostStart.timeoutSeconds"}, "mutating/apppoststart.rego", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := rules[tc.name]
			if !ok {
				t.Fatal("not in the catalogue")
			}
			if r.Kind != tc.kind || r.Admission != tc.admission || !slices.Equal(r.Objects, tc.objects) || !slices.Equal(r.DataKeys, tc.keys) ||
				!slices.Contains(r.Modules, tc.module) || r.Reconcile != tc.reconcile {
				t.Errorf("got kind %s, admission %s, objects %v, keys %v, modules %v, reconcile %v", r.Kind, r.Admission, r.Objects, r.DataKeys, r.Modules, r.Reconcile)
			}
			if r.DefaultMode != enforcement.DefaultMode(tc.name) || !slices.Equal(r.Modes, enforcement.Modes(tc.name)) || r.Mode != r.DefaultMode {
				t.Errorf("got modes %v, default %s, mode %s", r.Modes, r.DefaultMode, r.Mode)
			}
		})
	}
}

// TestAddedRulesAndEnforcement: a platform team's module adds its rule,
// and the enforcement section's modes and exceptions show beside the
// defaults.
func TestAddedRulesAndEnforcement(t *testing.T) {
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	module := `package sluice.validating

import rego.v1

# METADATA
# description: Every Dataset of team-a carries a cost centre.
deny contains deny_at("cost-centre", "metadata.labels", "needs a cost-centre label") if {
	input.kind == "Dataset"
	not obj.metadata.labels["cost-centre"]
	obj.metadata.namespace in object.get(data.sluice.config, ["teams", "costed"], [])
}
`
	data := `enforcement:
  rules:
    cost-centre: {mode: warn, namespaces: {prod: deny}}
  exceptions:
    legacy: {rules: [cost-centre, toleration], namespaces: [old]}
`
	if err := b.AddFile("validating/cost.rego", module, "team"); err != nil {
		t.Fatal(err)
	}
	if err := b.AddFile("enforcement.yaml", data, "team"); err != nil {
		t.Fatal(err)
	}
	rules, err := catalogue.Build(b)
	if err != nil {
		t.Fatal(err)
	}
	r := byName(rules)["cost-centre"]
	if r.Description != "Every Dataset of team-a carries a cost centre." || !slices.Equal(r.Objects, []string{"Dataset"}) ||
		!slices.Equal(r.DataKeys, []string{"teams.costed"}) || !slices.Equal(r.Modules, []string{"validating/cost.rego (team)"}) {
		t.Errorf("the added rule: %+v", r)
	}
	if r.Mode != enforcement.Warn || r.NamespaceModes["prod"] != enforcement.Deny || !slices.Equal(r.Exceptions, []string{"legacy"}) {
		t.Errorf("its enforcement: %+v", r)
	}
	if got := catalogue.ModeSummary(r); got != "deny (default), warn, dryrun; set: warn; in prod: deny; exceptions: legacy" {
		t.Errorf("ModeSummary: %s", got)
	}
	if tol := byName(rules)["toleration"]; !slices.Equal(tol.Exceptions, []string{"legacy"}) || tol.Mode != enforcement.Deny {
		t.Errorf("toleration: %+v", tol)
	}
}

// TestADenyRuleWithoutAStringName: a rule name the catalogue cannot read
// is an error naming the definition.
func TestADenyRuleWithoutAStringName(t *testing.T) {
	b, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	module := "package sluice.validating\n\nimport rego.v1\n\ndeny contains deny_at(input.kind, \"spec\", \"no\") if input.kind == \"X\"\n"
	if err := b.AddFile("validating/computed.rego", module, "team"); err != nil {
		t.Fatal(err)
	}
	_, err = catalogue.Build(b)
	if err == nil || !strings.Contains(err.Error(), "validating/computed.rego:5") {
		t.Fatalf("got %v, want an error naming validating/computed.rego:5", err)
	}
}

// TestTheDocsReferenceIsCurrent: docs/policies.md's rule reference is the
// default catalogue's Markdown (make generate rewrites it).
func TestTheDocsReferenceIsCurrent(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	rules := defaults(t)
	want, err := catalogue.Splice(string(raw), rules)
	if err != nil {
		t.Fatal(err)
	}
	if want != string(raw) {
		t.Fatal("docs/policies.md's rule reference is stale; run make generate")
	}
	for _, r := range rules {
		if !strings.Contains(string(raw), "| `"+r.Name+"` |") {
			t.Errorf("docs/policies.md's rule reference lacks %s", r.Name)
		}
	}
}

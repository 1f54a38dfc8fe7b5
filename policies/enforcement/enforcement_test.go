package enforcement

import (
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

func parseYAML(t *testing.T, doc string) (*Policy, error) {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return Parse(v)
}

func TestParseRejectsWhatItCannotHonour(t *testing.T) {
	tests := []struct {
		name string
		doc  string // the enforcement section
		want string // in the error
	}{
		{"unknown mode", `{rules: {image-registry: {mode: audit}}}`, `enforcement.rules.image-registry.mode: "audit" is not a mode of a deny rule (want one of deny, warn, dryrun)`},
		{"warn on a mutation rule", `{rules: {sidecar: {mode: warn}}}`, `enforcement.rules.sidecar.mode: "warn" is not a mode of a mutation rule (want one of apply, dryrun)`},
		{"unknown namespace mode", `{rules: {tieredstore-path: {namespaces: {team-a: block}}}}`, `enforcement.rules.tieredstore-path.namespaces.team-a: "block"`},
		{"misspelt field", `{rules: {image-registry: {mdoe: warn}}}`, `unknown field "rules.image-registry.mdoe"`},
		{"misspelt exception field", `{exceptions: {legacy: {rules: [image-registry], namespace: [a]}}}`, `unknown field "exceptions.legacy.namespace"`},
		{"exceptions as a list", `{exceptions: [{rules: [image-registry]}]}`, `exceptions: want an object`},
		{"bad expiry", `{exceptions: {legacy: {rules: [image-registry], namespaces: [a], expires: "next week"}}}`, `enforcement`},
		{"bad selector", `{exceptions: {legacy: {rules: [image-registry], selector: {matchExpressions: [{key: a, operator: Near}]}}}}`, `enforcement.exceptions.legacy.selector: "Near" is not a valid label selector operator`},
		{"no rules", `{exceptions: {legacy: {namespaces: [a]}}}`, `enforcement.exceptions.legacy.rules: want the rules it exempts from`},
		{"wildcard rule", `{exceptions: {legacy: {rules: ["*"], namespaces: [a]}}}`, `enforcement.exceptions.legacy.rules[0]: want a rule name, got "*"`},
		{"matches everything", `{exceptions: {legacy: {rules: [image-registry]}}}`, `enforcement.exceptions.legacy: want at least one of namespaces, selector and names`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseYAML(t, tt.doc)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// One file may hold part of an exception that another completes.
func TestParsePartChecksShapesOnly(t *testing.T) {
	var v any
	if err := yaml.Unmarshal([]byte(`{exceptions: {legacy: {expires: "2027-01-31T00:00:00Z"}}}`), &v); err != nil {
		t.Fatal(err)
	}
	if err := ParsePart(v); err != nil {
		t.Fatalf("a part of an exception: %v", err)
	}
	if _, err := Parse(v); err == nil {
		t.Fatal("the whole section accepted an exception without rules")
	}
	if err := ParsePart(map[string]any{"rules": map[string]any{"x": map[string]any{"mode": "enforce"}}}); err == nil {
		t.Fatal("a part with an unknown mode was accepted")
	}
}

func TestJudge(t *testing.T) {
	p, err := parseYAML(t, `
rules:
  image-registry: {mode: warn, namespaces: {prod: deny}}
  tieredstore-path: {mode: dryrun}
  sidecar: {namespaces: {canary: dryrun}}
exceptions:
  legacy:
    rules: [tieredstore-path, image-registry, affinity]
    namespaces: [legacy]
    expires: "2027-01-31T00:00:00Z"
  batch:
    rules: [host-path-volume]
    selector: {matchLabels: {team: batch}}
  one-runtime:
    rules: [host-path-volume]
    namespaces: [team-a]
    names: [old]
`)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Date(2027, 1, 30, 0, 0, 0, 0, time.UTC)
	after := time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)
	obj := func(ns, name string, labels map[string]string) Object {
		return Object{Namespace: ns, Name: name, Labels: labels}
	}
	tests := []struct {
		name      string
		rule      string
		obj       Object
		now       time.Time
		want      Outcome
		mode      Mode
		exception string
	}{
		{"a rule without a mode denies", "name-dns1035", obj("a", "x", nil), before, Denied, Deny, ""},
		{"the rule's mode", "image-registry", obj("a", "x", nil), before, Warned, Warn, ""},
		{"the namespace's mode", "image-registry", obj("prod", "x", nil), before, Denied, Deny, ""},
		{"dryrun", "tieredstore-path", obj("a", "x", nil), before, DryRunned, DryRun, ""},
		{"a mutation rule applies", "sidecar", obj("a", "x", nil), before, Applied, Apply, ""},
		{"a mutation rule's dryrun namespace", "sidecar", obj("canary", "x", nil), before, DryRunned, DryRun, ""},
		{"excepted namespace", "image-registry", obj("legacy", "x", nil), before, Excepted, Warn, "legacy"},
		{"excepted mutation", "affinity", obj("legacy", "x", nil), before, Excepted, Apply, "legacy"},
		{"expired at its time", "image-registry", obj("legacy", "x", nil), after, Warned, Warn, ""},
		{"a rule it does not name", "name-dns1035", obj("legacy", "x", nil), before, Denied, Deny, ""},
		{"selected labels", "host-path-volume", obj("b", "x", map[string]string{"team": "batch"}), before, Excepted, Deny, "batch"},
		{"other labels", "host-path-volume", obj("b", "x", map[string]string{"team": "web"}), before, Denied, Deny, ""},
		{"named object in its namespace", "host-path-volume", obj("team-a", "old", nil), before, Excepted, Deny, "one-runtime"},
		{"named object elsewhere", "host-path-volume", obj("team-b", "old", nil), before, Denied, Deny, ""},
		{"another object of the namespace", "host-path-volume", obj("team-a", "new", nil), before, Denied, Deny, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := p.Judge(tt.rule, "m", tt.obj, tt.now)
			if v.Outcome != tt.want || v.Mode != tt.mode || v.Exception != tt.exception || v.Rule != tt.rule || v.Message != "m" {
				t.Fatalf("verdict %+v, want outcome %s, mode %s, exception %q", v, tt.want, tt.mode, tt.exception)
			}
		})
	}
}

func TestNoPolicyKeepsTodaysBehaviour(t *testing.T) {
	for _, p := range []*Policy{nil, {}} {
		if v := p.Judge("image-registry", "m", Object{Namespace: "a"}, time.Now()); v.Outcome != Denied {
			t.Errorf("%+v: a deny rule gives %s", p, v.Outcome)
		}
		if v := p.Judge(RuleSidecar, "m", Object{Namespace: "a"}, time.Now()); v.Outcome != Applied {
			t.Errorf("%+v: a mutation rule gives %s", p, v.Outcome)
		}
	}
	p, err := Parse(nil)
	if err != nil || !p.Empty() {
		t.Fatalf("no section: %+v, %v", p, err)
	}
}

func TestRuleNames(t *testing.T) {
	p, err := parseYAML(t, `{rules: {b: {mode: warn}, a: {mode: dryrun}}, exceptions: {x: {rules: [c, a], namespaces: [ns1]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.RuleNames(), ","); got != "a,b,c" {
		t.Fatalf("rule names %s, want a,b,c", got)
	}
}

func TestExceptionHintNamesTheRulesAndTheDocs(t *testing.T) {
	h := ExceptionHint([]string{"tieredstore-path", "image-registry", "tieredstore-path"})
	for _, want := range []string{"rules image-registry, tieredstore-path", "enforcement.exceptions", `"Grant an exception"`} {
		if !strings.Contains(h, want) {
			t.Errorf("hint %q does not contain %q", h, want)
		}
	}
}

package policycmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// coverageDir writes a policy directory with two deny rules: a case
// makes team-fired fire, a Rego test reaches team-tested, and nothing
// exercises team-never.
func coverageDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"team.rego": `package sluice.validating

import rego.v1

# METADATA
# description: A Dataset may not be named bad.
deny contains deny_at("team-fired", "metadata.name", "is bad") if {
	input.kind == "Dataset"
	obj.metadata.name == "bad"
}

# METADATA
# description: A Dataset may not be named tested.
deny contains deny_at("team-tested", "metadata.name", "is tested") if {
	input.kind == "Dataset"
	obj.metadata.name == "tested"
}

# METADATA
# description: A Dataset may not be named never.
deny contains deny_at("team-never", "metadata.name", "is never") if {
	input.kind == "Dataset"
	obj.metadata.name == "never"
}
`,
		"team_test.rego": `package team_test

import rego.v1

test_tested_is_denied if {
	d := data.sluice.validating.deny with input as {"kind": "Dataset", "object": {"metadata": {"name": "tested", "namespace": "a"}}}
	some x in d
	x.rule == "team-tested"
}
`,
		"testdata/bad/object.yaml":  "apiVersion: data.fluid.io/v1alpha1\nkind: Dataset\nmetadata: {name: bad, namespace: team-a}\nspec:\n  mounts: [{mountPoint: \"s3://b/p\", name: p}]\n",
		"testdata/bad/objects.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n",
		"testdata/bad/denied.txt":   "metadata.name: is bad\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCoverageCountsRulesFiredAndLines: --coverage reports, for a
// directory's own rules, the cases that made each fire, whether a Rego
// test reached it and its lines covered, and names the rule nothing
// exercised; the JSON format carries it.
func TestCoverageCountsRulesFiredAndLines(t *testing.T) {
	dir := coverageDir(t)
	var out bytes.Buffer
	if err := runTests(context.Background(), &out, []string{dir}, testOptions{skipDefaults: true, coverage: true, format: formatJSON}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var got struct {
		Passed, Failed int
		Coverage       []coverage
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if got.Failed != 0 || got.Passed != 2 || len(got.Coverage) != 1 {
		t.Fatalf("got %+v\n%s", got, out.String())
	}
	c := got.Coverage[0]
	rules := map[string]ruleCoverage{}
	for _, r := range c.Rules {
		rules[r.Rule] = r
	}
	for name, want := range map[string]ruleCoverage{
		"team-fired":  {Rule: "team-fired", Kind: "deny", Own: true, Cases: 1, Tests: false, Lines: 3, CoveredLines: 2},
		"team-tested": {Rule: "team-tested", Kind: "deny", Own: true, Cases: 0, Tests: true, Lines: 3, CoveredLines: 3},
		"team-never":  {Rule: "team-never", Kind: "deny", Own: true, Cases: 0, Tests: false, Lines: 3, CoveredLines: 2},
	} {
		if rules[name] != want {
			t.Errorf("%s: got %+v, want %+v", name, rules[name], want)
		}
	}
	if !slices.Equal(c.NeverExercised, []string{"team-never"}) {
		t.Errorf("never exercised: %v", c.NeverExercised)
	}
	if len(c.Modules) != 1 || c.Modules[0].Module != "team.rego" || c.Modules[0].NotCoveredLines == 0 {
		t.Errorf("modules: %+v", c.Modules)
	}
	for name := range rules {
		if !strings.HasPrefix(name, "team-") {
			t.Errorf("%s is listed, which no case of the directory made fire", name)
		}
	}

	out.Reset()
	if err := runTests(context.Background(), &out, []string{dir}, testOptions{skipDefaults: true, coverage: true, format: formatText}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"never exercised (no case makes it fire, no Rego test reaches it): team-never", "team.rego"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, out.String())
		}
	}
	if _, _, err := run(t, "test", "--coverage", "--format", "junit", dir); err == nil || !strings.Contains(err.Error(), "--coverage prints with --format text or json") {
		t.Errorf("--coverage --format junit: %v", err)
	}
}

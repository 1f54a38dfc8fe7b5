package policycmd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/webhook/policy/catalogue"
)

// TestRulesListsAddedRulesAndModes: `policy rules` with a directory lists
// the directory's rule beside the defaults, and the modes and exceptions
// its data sets; the table names toleration and process-privilege.
func TestRulesListsAddedRulesAndModes(t *testing.T) {
	out, _, err := run(t, "rules", "--policies", "../../policies/examples/enforcement-rollout", "--policies", "../../policies/examples/team-zone", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rules []catalogue.Rule
	if err := json.Unmarshal([]byte(out), &rules); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	got := map[string]catalogue.Rule{}
	for _, r := range rules {
		got[r.Name] = r
	}
	if r := got["team-zone"]; r.Kind != catalogue.KindDeny || r.Admission != catalogue.Mutating || len(r.Modules) != 1 ||
		!strings.Contains(r.Modules[0], "policies/examples/team-zone") {
		t.Errorf("team-zone: %+v", r)
	}
	if r := got["image-registry"]; r.Mode != "warn" || r.NamespaceModes["prod"] != "deny" || len(r.Exceptions) != 1 || r.Exceptions[0] != "prod-legacy-images" {
		t.Errorf("image-registry: %+v", r)
	}

	out, _, err = run(t, "rules", "--policies", "../../policies/examples/enforcement-rollout")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"toleration ", "process-privilege ", "warn (default deny); in prod: deny; exceptions: prod-legacy-images"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// TestRulesMarkdownIsTheDocsReference: --format markdown over the default
// policies is what docs/policies.md's rule reference shows.
func TestRulesMarkdownIsTheDocsReference(t *testing.T) {
	out, _, err := run(t, "rules", "--format", "markdown")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	doc, err := os.ReadFile("../../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), catalogue.BeginMarker+"\n\n"+out+"\n"+catalogue.EndMarker) {
		t.Error("docs/policies.md's rule reference is not `sluice policy rules --format markdown`; run make generate")
	}
	if _, _, err := run(t, "rules", "--format", "yaml"); err == nil || !strings.Contains(err.Error(), "--format must be table, json or markdown") {
		t.Errorf("--format yaml: %v", err)
	}
}

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

// TestPolicyGuideShowsRulesAndCoverage keeps docs/policies.md true: each
// line shown after a `bin/sluice policy rules` or `bin/sluice policy test
// --coverage` command is a line it prints (spacing aside; "…" stands for
// lines, or a line's end, left out).
func TestPolicyGuideShowsRulesAndCoverage(t *testing.T) {
	blocks := fences(t, filepath.Join("..", "..", "docs", "policies.md"))
	t.Chdir(filepath.Join("..", ".."))
	shown := 0
	for i, b := range blocks {
		cmd, ok := strings.CutPrefix(strings.TrimSpace(b.text), "bin/sluice policy ")
		if b.lang != "sh" || !ok || i+1 >= len(blocks) || blocks[i+1].lang != "" {
			continue
		}
		args := strings.Fields(cmd)
		var out string
		switch {
		case args[0] == "rules":
			var err error
			if out, _, err = run(t, args...); err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
		case args[0] == "test" && slices.Contains(args, "--coverage"):
			// The guide shows the directory's coverage, not the defaults'.
			var buf bytes.Buffer
			if err := runTests(context.Background(), &buf, args[len(args)-1:], testOptions{skipDefaults: true, coverage: true, format: formatText}); err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			out = buf.String()
		default:
			continue
		}
		shown++
		var printed []string
		for _, line := range strings.Split(out, "\n") {
			printed = append(printed, strings.Join(strings.Fields(line), " "))
		}
		for _, line := range strings.Split(strings.TrimSpace(blocks[i+1].text), "\n") {
			want := strings.Join(strings.Fields(line), " ")
			if want == "…" {
				continue
			}
			cut, prefix := strings.CutSuffix(want, " …")
			if !slices.ContainsFunc(printed, func(p string) bool { return p == want || prefix && strings.HasPrefix(p, cut) }) {
				t.Errorf("%s does not print the line the guide shows:\n%s\nit prints:\n%s", cmd, line, out)
			}
		}
	}
	if shown < 2 {
		t.Errorf("docs/policies.md shows %d rules or coverage commands; want the two of its sections", shown)
	}
}

package policycmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/webhook/fixture"
	"github.com/sluice-data/sluice/webhook/policy"
)

// examplesDir holds the worked recipes of docs/policies.md.
var examplesDir = filepath.Join("..", "..", "policies", "examples")

// TestPolicyExamples runs `sluice policy test policies/examples`: every
// recipe's Rego tests, cases and ConfigMap, each recipe over the defaults
// alone.
func TestPolicyExamples(t *testing.T) {
	var out bytes.Buffer
	if err := runTests(context.Background(), &out, []string{examplesDir}, testOptions{verbose: true, skipDefaults: true}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	examples, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(examples) < 6 {
		t.Fatalf("%d examples; docs/policies.md shows six", len(examples))
	}
	for _, e := range examples {
		dir := filepath.Join(examplesDir, e.Name())
		if !strings.Contains(out.String(), "PASS configmap "+filepath.Join(dir, "configmap.yaml")) {
			t.Errorf("%s: no configmap.yaml deploying it was checked", dir)
		}
		if n := strings.Count(out.String(), "PASS case "+filepath.Join(dir, "testdata")+string(filepath.Separator)); n < 2 {
			t.Errorf("%s: %d cases; show the policy at work and where it stops", dir, n)
		}
	}
}

// controlCases pass without their recipe's policy: they show where the
// policy stops (what it must not deny or change).
var controlCases = map[string]bool{
	"namespace-cache-budget/testdata/within-budget":                true,
	"operation-rules/testdata/dataload-labelled-allowed":           true,
	"operation-rules/testdata/datamigrate-other-namespace-allowed": true,
	"enforcement-rollout/testdata/prod-denied":                     true,
}

// TestPolicyExamplesNeedTheirPolicies runs every recipe's cases over the
// default policies alone: each fails, but for the control cases, so that
// each case tests its recipe's policy rather than the defaults.
func TestPolicyExamplesNeedTheirPolicies(t *testing.T) {
	ctx := context.Background()
	defaults, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		cases, err := fixture.Load(os.DirFS(filepath.Join(examplesDir, e.Name())), testdataDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			name := e.Name() + "/" + c.Name
			err := c.Run(ctx, defaults)
			switch {
			case controlCases[name] && err != nil:
				t.Errorf("control case %s fails over the defaults: %v", name, err)
			case !controlCases[name] && err == nil:
				t.Errorf("case %s passes over the defaults alone: it does not test its recipe", name)
			}
		}
	}
}

// fence is one fenced block of a Markdown page.
type fence struct {
	lang, text string
}

func fences(t *testing.T, page string) []fence {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	var cur *fence
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fence{lang: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

// TestPolicyGuideShowsTheExamples keeps docs/policies.md true: each
// recipe's ConfigMap is shown as it is in policies/examples, and each
// `bin/sluice policy eval` command runs from the repository root; a
// denial, claim or "allowed" shown right after a command is what it
// prints.
func TestPolicyGuideShowsTheExamples(t *testing.T) {
	blocks := fences(t, filepath.Join("..", "..", "docs", "policies.md"))
	shown := map[string]bool{}
	for _, b := range blocks {
		first, _, _ := strings.Cut(b.text, "\n")
		name, ok := strings.CutPrefix(first, "# Deploys policies/examples/")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, ":")
		file, err := os.ReadFile(filepath.Join(examplesDir, name, "configmap.yaml"))
		if err != nil {
			t.Fatalf("docs/policies.md shows a ConfigMap of %s: %v", name, err)
		}
		if b.text != string(file) {
			t.Errorf("docs/policies.md shows a ConfigMap of %s that differs from its configmap.yaml", name)
		}
		shown[name] = true
	}
	examples, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		if !shown[e.Name()] {
			t.Errorf("docs/policies.md does not show the ConfigMap of %s", e.Name())
		}
	}

	t.Chdir(filepath.Join("..", ".."))
	commands := 0
	for i, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		for _, cmd := range strings.Split(strings.ReplaceAll(b.text, "\\\n", " "), "\n") {
			args, ok := strings.CutPrefix(strings.TrimSpace(cmd), "bin/sluice policy ")
			if !ok || !strings.HasPrefix(args, "eval ") {
				continue
			}
			commands++
			out, errOut, err := run(t, strings.Fields(args)...)
			var exit *ExitError
			if err != nil && (!errors.As(err, &exit) || exit.Code != 1) {
				t.Errorf("%s: %v", cmd, err)
				continue
			}
			if i+1 >= len(blocks) || blocks[i+1].lang != "" {
				continue
			}
			switch shown := blocks[i+1].text; {
			case strings.HasPrefix(shown, "denied:"):
				var denials strings.Builder
				for _, line := range strings.SplitAfter(errOut, "\n") {
					if strings.HasPrefix(line, "denied:") {
						denials.WriteString(line)
					}
				}
				if denials.String() != shown {
					t.Errorf("%s prints\n%s\nthe guide shows\n%s", cmd, denials.String(), shown)
				}
			case strings.HasPrefix(shown, "claims") || strings.HasPrefix(shown, "allowed"):
				if out != shown {
					t.Errorf("%s prints\n%s\nthe guide shows\n%s", cmd, out, shown)
				}
			}
		}
	}
	if commands < 6 {
		t.Errorf("docs/policies.md shows %d policy eval commands; each recipe has one", commands)
	}
}

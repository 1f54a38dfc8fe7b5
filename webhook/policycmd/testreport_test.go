package policycmd

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestRunsWhatRunSelects: --run keeps only the tests and cases whose
// name matches, and --format json prints each result.
func TestTestRunsWhatRunSelects(t *testing.T) {
	out, _, err := run(t, "test", "--run", "denied-not-bound|test_two_required_datasets", "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got struct {
		Passed, Failed int
		Results        []result
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Passed < 2 || got.Failed != 0 || len(got.Results) != got.Passed {
		t.Fatalf("results %+v", got)
	}
	var rego, cases int
	for _, r := range got.Results {
		switch {
		case strings.HasPrefix(r.Name, "rego ") && strings.Contains(r.Name, "test_two_required_datasets"):
			rego++
		case strings.HasPrefix(r.Name, "case ") && strings.Contains(r.Name, "denied-not-bound"):
			cases++
		default:
			t.Errorf("%s ran, which --run does not select", r.Name)
		}
	}
	if rego == 0 || cases == 0 {
		t.Errorf("--run selected %d Rego tests and %d cases, want both", rego, cases)
	}
}

// TestTestPrintsJUnit: a failing case of a platform team's directory is a
// JUnit failure with its message, and the command exits 1.
func TestTestPrintsJUnit(t *testing.T) {
	dir := t.TempDir()
	caseDir := filepath.Join(dir, "testdata", "wrong")
	if err := os.MkdirAll(caseDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pod, _ := os.ReadFile(fixtureFile("serverful-affinity", "pod.yaml"))
	objs, _ := os.ReadFile(fixtureFile("serverful-affinity", "objects.yaml"))
	for name, data := range map[string][]byte{"pod.yaml": pod, "objects.yaml": objs, "denied.txt": []byte("this is not denied\n")} {
		if err := os.WriteFile(filepath.Join(caseDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := run(t, "test", "--run", "^case "+regexpQuote(dir), "--format", "junit", dir)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Fatalf("want exit status 1, got %v\n%s", err, out)
	}
	var suite junitSuite
	if err := xml.Unmarshal([]byte(out), &suite); err != nil {
		t.Fatalf("not JUnit XML: %v\n%s", err, out)
	}
	if suite.Tests != 1 || suite.Failures != 1 || suite.Cases[0].Class != "case" || suite.Cases[0].Failure == nil ||
		!strings.Contains(suite.Cases[0].Failure.Text, "this is not denied") {
		t.Fatalf("suite %+v", suite)
	}
	if _, _, err := run(t, "test", "--format", "yaml"); err == nil || !strings.Contains(err.Error(), "--format must be text, json or junit") {
		t.Fatalf("an unknown format: %v", err)
	}
}

func regexpQuote(s string) string {
	r := strings.NewReplacer(".", `\.`, "+", `\+`, "(", `\(`, ")", `\)`)
	return r.Replace(s)
}

package policycmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	policyreportv1alpha2 "github.com/sluice-data/sluice/api/policyreport/v1alpha2"
	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/audit"
)

// auditObjects writes a manifest of a runtime three guards refuse (team-a),
// a runtime they accept (team-b), and a Pod of an unbound Dataset the
// mutating deny rules refuse (the denied-not-bound fixture).
func auditObjects(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range []string{
		filepath.Join("..", "..", "policies", "testdata", "validating", "runtime-guards", "object.yaml"),
		fixtureFile("denied-not-bound", "objects.yaml"),
		fixtureFile("denied-not-bound", "pod.yaml"),
	} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The guarded runtime is not the fixture's imagenet runtime.
		b.WriteString(strings.Replace(string(data), "{name: imagenet, namespace: team-a}\nspec:\n  replicas: 1\n", "{name: guarded, namespace: team-a}\nspec:\n  replicas: 1\n", 1))
		b.WriteString("\n---\n")
	}
	b.WriteString(`apiVersion: data.fluid.io/v1alpha1
kind: JuiceFSRuntime
metadata: {name: fine, namespace: team-b}
spec:
  tieredstore:
    levels: [{mediumtype: SSD, path: /mnt/ssd, quota: 10Gi}]
`)
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func wantExit1(t *testing.T, err error) {
	t.Helper()
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Fatalf("want exit status 1 for refused objects, got %v", err)
	}
}

func TestAuditTableListsRefusedObjects(t *testing.T) {
	out, _, err := run(t, "audit", "--objects", auditObjects(t))
	wantExit1(t, err)
	for _, want := range []string{"NAMESPACE", "guarded   fail    host-path-volume", "image-registry", "tieredstore-path", "Pod", "dataset-not-bound"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "fine") {
		t.Errorf("the accepted runtime is listed:\n%s", out)
	}
}

func TestAuditJSONAndPolicyReports(t *testing.T) {
	objects := auditObjects(t)
	out, _, err := run(t, "audit", "--objects", objects, "-o", "json")
	wantExit1(t, err)
	var findings []audit.Finding
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// The fixture's Dataset sets no JuiceFS metaurl: stored as it is, its
	// CREATE would be refused too.
	if len(findings) != 5 {
		t.Fatalf("want the three guard denials, the Dataset's and the Pod's, got %+v", findings)
	}

	out, _, err = run(t, "audit", "--objects", objects, "-o", "policyreport")
	wantExit1(t, err)
	byNamespace := map[string]policyreportv1alpha2.PolicyReport{}
	for _, doc := range strings.Split(out, "---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var r policyreportv1alpha2.PolicyReport
		if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
		if r.Kind != "PolicyReport" || r.APIVersion != "wgpolicyk8s.io/v1alpha2" || r.Name != audit.ReportName {
			t.Fatalf("not a Sluice PolicyReport: %+v", r.TypeMeta)
		}
		byNamespace[r.Namespace] = r
	}
	if got := byNamespace["team-a"].Summary; got.Fail != 5 || got.Pass != 1 {
		t.Errorf("team-a summary = %+v, want 5 failures and the fixture runtime passing", got)
	}
	if got := byNamespace["team-b"].Summary; got.Pass != 1 || got.Fail != 0 || len(byNamespace["team-b"].Results) != 0 {
		t.Errorf("team-b report = %+v, want one pass and no result listed", byNamespace["team-b"])
	}
}

func TestAuditCandidatePoliciesOverTheLiveOnes(t *testing.T) {
	dir := t.TempDir()
	// A candidate that allows busybox and the kubelet's directory in
	// team-a: the image is no longer refused, the hostPath volume still is.
	data := `validating:
  guards:
    team-a: {imagePrefixes: [busybox, juicedata/], tieredstorePaths: [/mnt, /var/lib/kubelet]}
`
	if err := os.WriteFile(filepath.Join(dir, "data.yaml"), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "audit", "--objects", auditObjects(t), "--namespace", "team-a", "--policies", dir)
	wantExit1(t, err)
	if !strings.Contains(out, "host-path-volume") || strings.Contains(out, "image-registry") {
		t.Fatalf("with the candidate, only host-path-volume should refuse:\n%s", out)
	}
}

func TestAuditRejectsAnUnknownFormat(t *testing.T) {
	_, _, err := run(t, "audit", "--objects", auditObjects(t), "-o", "csv")
	if err == nil || !strings.Contains(err.Error(), "--output must be table, json or policyreport") {
		t.Fatalf("err = %v", err)
	}
}

func TestAuditSkipsTheNamespacesTheWebhooksNeverSee(t *testing.T) {
	out, _, err := run(t, "audit", "--objects", auditObjects(t), "--skip-namespaces", "kube-system,team-a")
	if err != nil || !strings.Contains(out, "No stored object is refused") {
		t.Fatalf("with team-a skipped: err %v, out:\n%s", err, out)
	}
}

// TestAuditReportsModesAndExceptions: a finding of a rule in warn mode is
// reported as warn, one in dryrun mode as dryrun, and one an exception
// covers as excepted naming the exception: a warn or skip result of the
// PolicyReport with the outcome, and nothing that makes the command fail.
func TestAuditReportsModesAndExceptions(t *testing.T) {
	dir := t.TempDir()
	data := `enforcement:
  rules:
    host-path-volume: {mode: warn}
    image-registry: {namespaces: {team-a: dryrun}}
  exceptions:
    legacy-tiers: {rules: [tieredstore-path], namespaces: [team-a], names: [guarded]}
`
	if err := os.WriteFile(filepath.Join(dir, "enforcement.yaml"), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	objects := auditObjects(t)
	out, _, err := run(t, "audit", "--objects", objects, "--policies", dir, "-o", "json")
	wantExit1(t, err) // the Dataset's and the Pod's denials stand
	var findings []audit.Finding
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	got := map[string]audit.Finding{}
	for _, f := range findings {
		got[f.Rule] = f
	}
	for rule, want := range map[string]struct {
		outcome   enforcement.Outcome
		result    policyreportv1alpha2.Result
		exception string
	}{
		"host-path-volume":  {enforcement.Warned, policyreportv1alpha2.ResultWarn, ""},
		"image-registry":    {enforcement.DryRunned, policyreportv1alpha2.ResultWarn, ""},
		"tieredstore-path":  {enforcement.Excepted, policyreportv1alpha2.ResultSkip, "legacy-tiers"},
		"dataset-not-bound": {enforcement.Denied, policyreportv1alpha2.ResultFail, ""},
	} {
		if f := got[rule]; f.Outcome != want.outcome || f.Result != want.result || f.Exception != want.exception {
			t.Errorf("%s: got %+v, want %+v", rule, f, want)
		}
	}

	out, _, err = run(t, "audit", "--objects", objects, "--policies", dir)
	wantExit1(t, err)
	for _, want := range []string{"warn    host-path-volume", "dryrun  image-registry", "excepted (legacy-tiers)  tieredstore-path", "fail    dataset-not-bound"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	out, _, err = run(t, "audit", "--objects", objects, "--policies", dir, "-o", "policyreport", "-n", "team-a")
	wantExit1(t, err)
	var r policyreportv1alpha2.PolicyReport
	if err := yaml.UnmarshalStrict([]byte(strings.TrimPrefix(out, "---\n")), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if r.Summary.Fail != 2 || r.Summary.Warn != 2 || r.Summary.Skip != 1 || r.Summary.Pass != 1 {
		t.Errorf("team-a summary = %+v, want 2 fail, 2 warn, 1 skip, 1 pass", r.Summary)
	}
	for _, res := range r.Results {
		if res.Rule == "tieredstore-path" && (res.Result != policyreportv1alpha2.ResultSkip || res.Scored ||
			res.Properties[audit.PropertyOutcome] != "excepted" || res.Properties[audit.PropertyException] != "legacy-tiers") {
			t.Errorf("the excepted result: %+v", res)
		}
		if res.Rule == "image-registry" && (res.Result != policyreportv1alpha2.ResultWarn || res.Properties[audit.PropertyOutcome] != "dryrun") {
			t.Errorf("the dryrun result: %+v", res)
		}
	}
}

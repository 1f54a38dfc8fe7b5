package policycmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := NewCommand()
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func fixtureFile(name, file string) string {
	return filepath.Join("..", "..", "policies", "testdata", "mutating", name, file)
}

func TestEvalPrintsMutatedPodOrPatch(t *testing.T) {
	out, _, err := run(t, "eval", "--pod", fixtureFile("serverful-affinity", "pod.yaml"), "--objects", fixtureFile("serverful-affinity", "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "fluid.io/datasets-in-use: imagenet") || !strings.Contains(out, "mountPropagation: HostToContainer") {
		t.Fatalf("mutated Pod:\n%s", out)
	}
	out, _, err = run(t, "eval", "--patch", "--pod", fixtureFile("serverful-affinity", "pod.yaml"), "--objects", fixtureFile("serverful-affinity", "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"path": "/spec/affinity"`) {
		t.Fatalf("patch:\n%s", out)
	}
}

func TestEvalDenialExitsOne(t *testing.T) {
	_, errOut, err := run(t, "eval", "--pod", fixtureFile("denied-not-bound", "pod.yaml"), "--objects", fixtureFile("denied-not-bound", "objects.yaml"))
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Fatalf("want exit status 1, got %v", err)
	}
	if !strings.Contains(errOut, "denied: ") || !strings.Contains(errOut, "rule dataset-not-bound") {
		t.Fatalf("stderr = %q", errOut)
	}
}

func TestTestCommandCountsAndFailsOnABrokenCase(t *testing.T) {
	out, _, err := run(t, "test")
	if err != nil {
		t.Fatalf("default policies: %v\n%s", err, out)
	}
	if !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("summary missing:\n%s", out)
	}
	// A platform team's directory with a case whose expectation is wrong.
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
	out, _, err = run(t, "test", dir)
	var exit *ExitError
	if !errors.As(err, &exit) || !strings.Contains(out, " passed, 1 failed") || !strings.Contains(out, "FAIL case "+dir) {
		t.Fatalf("want one failure, got %v:\n%s", err, out)
	}
}

func TestEvalValidatesObjects(t *testing.T) {
	dir := filepath.Join("..", "..", "policies", "testdata", "validating")
	out, _, err := run(t, "eval", "--object", filepath.Join(dir, "dataload-claims", "object.yaml"), "--objects", filepath.Join(dir, "dataload-claims", "objects.yaml"))
	if err != nil || !strings.Contains(out, "claims dataset team-a/imagenet for DataLoad nightly") || !strings.HasSuffix(out, "allowed\n") {
		t.Fatalf("err=%v out=%q", err, out)
	}
	_, errOut, err := run(t, "eval", "--object", filepath.Join(dir, "dataset-mounts-held", "object.yaml"),
		"--old", filepath.Join(dir, "dataset-mounts-held", "old.yaml"), "--objects", filepath.Join(dir, "dataset-mounts-held", "objects.yaml"))
	var exit *ExitError
	if !errors.As(err, &exit) || !strings.Contains(errOut, "rule dataset-mounts-held") {
		t.Fatalf("err=%v stderr=%q", err, errOut)
	}
	if _, _, err := run(t, "eval", "--pod", "p.yaml", "--object", "o.yaml"); err == nil {
		t.Fatal("--pod and --object together must be refused")
	}
}

// writeTree writes files (path -> content) under a new temporary directory
// and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFixture(t *testing.T, name, file string) string {
	t.Helper()
	data, err := os.ReadFile(fixtureFile(name, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// weightsData changes the node tier's weight; lists replace, so it
// restates the other tiers.
const weightsData = `mutating:
  affinity:
    preferred:
      - {name: fluid.io/node, weight: 80}
      - {name: topology.kubernetes.io/zone, weight: 50}
      - {name: topology.kubernetes.io/region, weight: 20}
`

const weightsConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: weights
  namespace: sluice-system
  labels: {policy.sluice.io/bundle: "true"}
data:
  weights.yaml: |
    mutating:
      affinity:
        preferred:
          - {name: fluid.io/node, weight: 80}
          - {name: topology.kubernetes.io/zone, weight: 50}
          - {name: topology.kubernetes.io/region, weight: 20}
`

const denyModule = `package sluice.mutating

import rego.v1

deny contains {"rule": "no-trainers", "message": "no trainers here"} if input.pod.metadata.name == "trainer"
`

const denyTest = `package example_test

import rego.v1

test_trainer_denied if {
	d := data.sluice.mutating.decision with input as {"request": {"namespace": "x"}, "pod": {"metadata": {"name": "trainer"}, "spec": {}}, "datasetVolumes": [], "cluster": {}}
	some x in d.deny
	x.rule == "no-trainers"
}
`

// An example set: each example is tested alone over the defaults, with
// its own Rego tests (not the defaults'), its cases and its ConfigMap.
func TestTestCommandRunsEachExampleAlone(t *testing.T) {
	pod, objs := readFixture(t, "serverful-affinity", "pod.yaml"), readFixture(t, "serverful-affinity", "objects.yaml")
	defaultWeights := readFixture(t, "serverful-affinity", "expected.yaml")
	weighted := strings.Replace(strings.Replace(defaultWeights, "weight: 100", "weight: 80", 1), "imagenet (100)", "imagenet (80)", 1)
	if weighted == defaultWeights {
		t.Fatal("the serverful-affinity fixture has no weight 100")
	}
	dir := writeTree(t, map[string]string{
		// The data override, its ConfigMap, and a case it passes.
		"weights/weights.yaml":                            weightsData,
		"weights/configmap.yaml":                          weightsConfigMap,
		"weights/testdata/node-80/pod.yaml":               pod,
		"weights/testdata/node-80/objects.yaml":           objs,
		"weights/testdata/node-80/expected.yaml":          weighted,
		"deny/deny.rego":                                  denyModule,
		"deny/deny_test.rego":                             denyTest,
		"deny/testdata/denied/pod.yaml":                   pod,
		"deny/testdata/denied/objects.yaml":               objs,
		"deny/testdata/denied/denied.txt":                 "rule no-trainers\n",
		"defaults/testdata/default-weights/pod.yaml":      pod,
		"defaults/testdata/default-weights/objects.yaml":  objs,
		"defaults/testdata/default-weights/expected.yaml": defaultWeights,
	})
	var out bytes.Buffer
	err := runTests(context.Background(), &out, []string{dir}, testOptions{verbose: true, skipDefaults: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"PASS configmap " + filepath.Join(dir, "weights", "configmap.yaml"),
		"PASS case " + filepath.Join(dir, "weights", "testdata", "node-80"),
		"PASS rego data.example_test.test_trainer_denied (" + filepath.Join(dir, "deny") + ")",
		"PASS case " + filepath.Join(dir, "deny", "testdata", "denied"),
		// Neither the weights nor the deny rule reach the other examples.
		"PASS case " + filepath.Join(dir, "defaults", "testdata", "default-weights"),
		"5 passed, 0 failed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "data.sluice.mutating_test") {
		t.Errorf("the defaults' Rego tests ran with an example's policies:\n%s", out.String())
	}

	// The same directories given together are one bundle: the deny rule
	// now denies the other directories' trainers.
	out.Reset()
	err = runTests(context.Background(), &out, []string{filepath.Join(dir, "weights"), filepath.Join(dir, "deny")}, testOptions{skipDefaults: true})
	var exit *ExitError
	if !errors.As(err, &exit) || !strings.Contains(out.String(), "FAIL case "+filepath.Join(dir, "weights", "testdata", "node-80")) || !strings.Contains(out.String(), "3 passed, 1 failed") {
		t.Fatalf("want the weights case denied in one bundle with the deny rule, got %v:\n%s", err, out.String())
	}
}

func TestConfigMapMustDeployTheDirectory(t *testing.T) {
	pod, objs := readFixture(t, "serverful-affinity", "pod.yaml"), readFixture(t, "serverful-affinity", "objects.yaml")
	tests := []struct {
		name, configMap, want string
	}{
		{"content differs", strings.Replace(weightsConfigMap, "weight: 80", "weight: 70", 1), "key weights.yaml differs from the file weights.yaml"},
		{"file missing", strings.Replace(weightsConfigMap, "  weights.yaml: |", "  other.yaml: |", 1), "key other.yaml: the directory has no file other.yaml; the file weights.yaml is not a key (weights.yaml)"},
		{"not labelled", strings.Replace(weightsConfigMap, `policy.sluice.io/bundle: "true"`, `team: a`, 1), "lacks the label policy.sluice.io/bundle=true"},
		{"no namespace", strings.Replace(weightsConfigMap, "  namespace: sluice-system\n", "", 1), "names no namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{
				"weights.yaml": weightsData, "configmap.yaml": tt.configMap,
				"testdata/c/pod.yaml": pod, "testdata/c/objects.yaml": objs, "testdata/c/denied.txt": "never\n",
			})
			var out bytes.Buffer
			err := runTests(context.Background(), &out, []string{dir}, testOptions{skipDefaults: true})
			if err == nil || !strings.Contains(out.String(), "FAIL configmap "+filepath.Join(dir, "configmap.yaml")) || !strings.Contains(out.String(), tt.want) {
				t.Fatalf("want the ConfigMap refused with %q, got %v:\n%s", tt.want, err, out.String())
			}
		})
	}
	// A manifest of anything else is neither data nor a ConfigMap.
	dir := writeTree(t, map[string]string{"ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n"})
	if _, _, err := run(t, "eval", "--policies", dir, "--pod", fixtureFile("serverful-affinity", "pod.yaml")); err == nil || !strings.Contains(err.Error(), "neither policy data nor a policy ConfigMap") {
		t.Fatalf("err = %v", err)
	}
}

func TestExampleSetNeedsCasesInEveryExample(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/testdata/c/pod.yaml": "", "b/deny.rego": denyModule,
	})
	if _, _, err := run(t, "test", dir); err == nil || !strings.Contains(err.Error(), "b has no testdata/") {
		t.Fatalf("err = %v", err)
	}
	// eval takes one policy directory, not a set of them.
	dir = writeTree(t, map[string]string{"a/testdata/c/pod.yaml": "", "a/deny.rego": denyModule})
	if _, _, err := run(t, "eval", "--policies", dir, "--pod", fixtureFile("serverful-affinity", "pod.yaml")); err == nil || !strings.Contains(err.Error(), "is a set of example directories") {
		t.Fatalf("err = %v", err)
	}
}

// TestEvalJudgesAWorkloadsTemplate: eval --pod takes a Deployment (or
// another workload) and judges the Pod its template would create, as the
// workload check does at apply time.
func TestEvalJudgesAWorkloadsTemplate(t *testing.T) {
	pod, err := os.ReadFile(fixtureFile("denied-not-bound", "pod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Metadata map[string]any `json:"metadata"`
		Spec     map[string]any `json:"spec"`
	}
	if err := yaml.Unmarshal(pod, &p); err != nil {
		t.Fatal(err)
	}
	deployment, err := yaml.Marshal(map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "reader", "namespace": p.Metadata["namespace"]},
		"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "reader"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "reader"}}, "spec": p.Spec}},
	})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "deployment.yaml")
	if err := os.WriteFile(file, deployment, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, err := run(t, "eval", "--pod", file, "--objects", fixtureFile("denied-not-bound", "objects.yaml"))
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 1 || !strings.Contains(errOut, "rule dataset-not-bound") {
		t.Fatalf("the Deployment's template: %v, stderr %q", err, errOut)
	}
}

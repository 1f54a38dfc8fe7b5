package chart_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// readDocs decodes every YAML document of a file under the repository.
func readDocs(t *testing.T, rel string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(data), "\n---") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// TestCRDsAreTheGeneratedOnes checks crds/ against config/crd/bases, one
// for one (`make generate` writes them; this catches a chart edited by hand
// or a generate step skipped).
func TestCRDsAreTheGeneratedOnes(t *testing.T) {
	bases, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "config", "crd", "bases", "*.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	chartCRDs := map[string]bool{}
	for _, f := range loadChart(t).CRDObjects() {
		chartCRDs[f.Name] = true
	}
	for _, b := range bases {
		name := strings.TrimSuffix(filepath.Base(b), ".yaml")
		want := readDocs(t, filepath.Join("config", "crd", "bases", filepath.Base(b)))[0].Object
		if slices.Contains(datav1alpha1.RefusedKinds(), unstructuredKind(want)) {
			dropDescriptions(want) // hack/chartsync leaves them out of the chart
		}
		data, err := os.ReadFile(filepath.Join(chartDir(), "crds", name+".json"))
		if err != nil {
			t.Errorf("%s: %v (run `make generate`)", name, err)
			continue
		}
		got := map[string]any{}
		if !bytes.HasPrefix(data, []byte("---\n")) {
			t.Errorf("crds/%s.json does not start with a document separator: `helm show crds` would run it into the previous CRD", name)
		}
		if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("---\n")), &got); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("crds/%s.json differs from config/crd/bases (run `make generate`):\n%.2000s", name, diff)
		}
		delete(chartCRDs, "crds/"+name+".json")
	}
	for extra := range chartCRDs {
		t.Errorf("the chart has %s, which config/crd/bases has not", extra)
	}
}

// unstructuredKind is the kind a CRD defines.
func unstructuredKind(crd map[string]any) string {
	kind, _, _ := unstructured.NestedString(crd, "spec", "names", "kind")
	return kind
}

// dropDescriptions removes every schema description (text) under node.
func dropDescriptions(node any) {
	switch n := node.(type) {
	case map[string]any:
		if _, text := n["description"].(string); text {
			delete(n, "description")
		}
		for _, v := range n {
			dropDescriptions(v)
		}
	case []any:
		for _, v := range n {
			dropDescriptions(v)
		}
	}
}

// TestControllerRulesAreGenerated checks that the controller's ClusterRole,
// and its Role in the release namespace, have exactly the rules
// controller-gen generated from the markers.
func TestControllerRulesAreGenerated(t *testing.T) {
	// Not the markers' namespace (sluice-system), to see the Role follow
	// the release.
	const releaseNS = "data-platform"
	rel, err := dryRun(loadChart(t), nil, releaseNS)
	if err != nil {
		t.Fatal(err)
	}
	objs := objects(t, rel.Manifest)
	generated := readDocs(t, "config/rbac/role.yaml")
	if len(generated) != 2 {
		t.Fatalf("config/rbac/role.yaml has %d roles, want the ClusterRole and the Role in the controller's namespace", len(generated))
	}
	for _, want := range generated {
		got := find(t, objs, want.GetKind(), "sluice-controller")
		if diff := cmp.Diff(want.Object["rules"], got.Object["rules"]); diff != "" {
			t.Errorf("the chart's controller %s rules differ from config/rbac/role.yaml (-generated +chart):\n%s", want.GetKind(), diff)
		}
		if want.GetKind() == "Role" && got.GetNamespace() != releaseNS {
			t.Errorf("the controller's Role is in namespace %q, want the release namespace %q", got.GetNamespace(), releaseNS)
		}
	}
}

// TestWebhookEntriesAreConfigs checks that, with default values, the
// chart's webhook entries are config/webhook's (the ones the webhook tests
// run against), and that only the values-driven fields change otherwise.
func TestWebhookEntriesAreConfigs(t *testing.T) {
	objs := render(t, nil)
	for _, tc := range []struct{ file, kind, name string }{
		{"config/webhook/mutating.yaml", "MutatingWebhookConfiguration", "sluice-mutating-webhook"},
		{"config/webhook/validating.yaml", "ValidatingWebhookConfiguration", "sluice-validating-webhook"},
	} {
		want := readDocs(t, tc.file)[0]
		got := find(t, objs, tc.kind, tc.name)
		if diff := cmp.Diff(want.Object["webhooks"], got.Object["webhooks"]); diff != "" {
			t.Errorf("%s entries differ from %s (-config +chart):\n%s", tc.kind, tc.file, diff)
		}
	}
}

// TestCSIMatchesConfig checks the CSI plugin's rules and the CSIDriver
// against config/csi.
func TestCSIMatchesConfig(t *testing.T) {
	objs := render(t, nil)
	var wantRules any
	for _, o := range readDocs(t, "config/csi/plugin.yaml") {
		if o.GetKind() == "ClusterRole" {
			wantRules = o.Object["rules"]
		}
	}
	if diff := cmp.Diff(wantRules, find(t, objs, "ClusterRole", "sluice-csi").Object["rules"]); diff != "" {
		t.Errorf("CSI rules differ from config/csi/plugin.yaml:\n%s", diff)
	}
	want := readDocs(t, "config/csi/csidriver.yaml")[0]
	if diff := cmp.Diff(want.Object["spec"], find(t, objs, "CSIDriver", "fuse.csi.fluid.io").Object["spec"]); diff != "" {
		t.Errorf("CSIDriver differs from config/csi/csidriver.yaml:\n%s", diff)
	}
}

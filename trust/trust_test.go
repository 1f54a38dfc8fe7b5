package trust_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/trust"
)

// TestEveryFieldIsClassified: every field of every data.fluid.io kind
// (walked by reflection over api/v1alpha1) has a class, so a field added
// to the API cannot reach a container unclassified.
func TestEveryFieldIsClassified(t *testing.T) {
	fields := trust.AllFields()
	if len(fields) < 10 {
		t.Fatalf("walked %d kinds, want every data.fluid.io kind (at least 10)", len(fields))
	}
	for _, f := range trust.Unclassified(fields) {
		t.Errorf("%s is not classified in trust/table.go: say whether a namespace user's value is tenant-safe, guarded (by which rule) or platform-owned", f)
	}
}

// TestANewFieldFailsTheCheck is the check above on the API with fields
// and a kind added: each addition is reported, nothing else is.
func TestANewFieldFailsTheCheck(t *testing.T) {
	fields := trust.AllFields()
	fields["JuiceFSRuntime"] = append(slices.Clone(fields["JuiceFSRuntime"]), "spec.fuse.startupProbe")
	fields["ThinRuntime"] = append(slices.Clone(fields["ThinRuntime"]), "spec.worker.lifecycle")
	fields["GooseFSRuntime"] = []string{"spec.fuse.env"}
	fields["CacheRuntimeClass"] = append(slices.Clone(fields["CacheRuntimeClass"]), "scheduling")
	got := trust.Unclassified(fields)
	want := []string{"CacheRuntimeClass scheduling", "GooseFSRuntime spec.fuse.env", "JuiceFSRuntime spec.fuse.startupProbe", "ThinRuntime spec.worker.lifecycle"}
	if !slices.Equal(got, want) {
		t.Errorf("unclassified %q, want %q", got, want)
	}
}

// TestEveryRowNamesAField: no row of the table classifies nothing (a
// misspelt path would leave the field it meant to another row).
func TestEveryRowNamesAField(t *testing.T) {
	for _, r := range trust.Unused(trust.AllFields()) {
		t.Errorf("row %s classifies no field", r)
	}
}

// TestRowsAreWellFormed: a guarded row names its rule; only rows of the
// privileged-container rule, and all of them, say which container.
func TestRowsAreWellFormed(t *testing.T) {
	for _, s := range trust.Table {
		for _, r := range s.Rows {
			switch {
			case r.Class == trust.Guarded && r.Rule == "":
				t.Errorf("%v %s: guarded without a rule", s.Kinds, r.Path)
			case r.Class != trust.Guarded && r.Rule != "":
				t.Errorf("%v %s: rule %s on a %s row", s.Kinds, r.Path, r.Rule, r.Class)
			case (r.Rule == trust.RulePrivileged) != (r.Host != nil):
				t.Errorf("%v %s: the %s rule and Host go together", s.Kinds, r.Path, trust.RulePrivileged)
			case r.Note == "":
				t.Errorf("%v %s: no note", s.Kinds, r.Path)
			}
		}
	}
}

// TestGuardRulesAreInTheDefaultPolicies: every rule a guarded row names
// is a deny rule of the default validating policies, and a Rego test
// names it.
func TestGuardRulesAreInTheDefaultPolicies(t *testing.T) {
	files, err := filepath.Glob("../policies/validating/*.rego")
	if err != nil || len(files) == 0 {
		t.Fatalf("policies: %v %v", files, err)
	}
	var rules, tests strings.Builder
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "_test.rego") {
			tests.Write(raw)
		} else {
			rules.Write(raw)
		}
	}
	for _, rule := range trust.Rules() {
		if !strings.Contains(rules.String(), `deny_at("`+rule+`"`) {
			t.Errorf("guard rule %s: no deny_at(%q, ...) in policies/validating", rule, rule)
		}
		if !strings.Contains(tests.String(), `"`+rule+`"`) {
			t.Errorf("guard rule %s: no Rego test names it", rule)
		}
	}
}

func TestPrivilegedValues(t *testing.T) {
	jfs := &datav1alpha1.JuiceFSRuntime{}
	jfs.Spec.Fuse.Env = []corev1.EnvVar{{Name: "PATH", Value: "/opt/x"}}
	jfs.Spec.Worker.VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/opt/x"}}
	jfs.Spec.Fuse.Options = map[string]string{"cache-size": "100"}
	if got := fieldsOf(trust.Privileged(jfs)); !slices.Equal(got, []string{"spec.worker.volumeMounts", "spec.fuse.env[0]"}) {
		t.Errorf("JuiceFS: %q", got)
	}

	al := &datav1alpha1.AlluxioRuntime{}
	al.Spec.Master.Env = map[string]string{"A": "b"}
	al.Spec.Fuse.JvmOptions = []string{"-Xmx1G", "-XX:OnOutOfMemoryError=sh -c x"}
	got := trust.Privileged(al)
	if paths := fieldsOf(got); !slices.Equal(paths, []string{"spec.fuse.jvmOptions[0]", "spec.fuse.jvmOptions[1]"}) {
		t.Errorf("Alluxio on the pod network: %q", paths)
	}
	if got[1].Value != "-XX:OnOutOfMemoryError=sh -c x" || got[1].List != "jvmOptions" || got[1].Field != "spec.fuse.jvmOptions" {
		t.Errorf("a JVM option: %+v", got[1])
	}
	al.Spec.Master.NetworkMode = datav1alpha1.HostNetworkMode
	if paths := fieldsOf(trust.Privileged(al)); !slices.Contains(paths, "spec.master.env.A") {
		t.Errorf("Alluxio master on the host network: %q", paths)
	}

	thin := &datav1alpha1.ThinRuntime{}
	thin.Spec.Worker.Env = []corev1.EnvVar{{Name: "A", Value: "b"}}
	thin.Spec.Fuse.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh"}}}}
	if paths := fieldsOf(trust.Privileged(thin)); !slices.Equal(paths, []string{"spec.worker.env[0]", "spec.fuse.lifecycle"}) {
		t.Errorf("Thin, worker on the default (host) network: %q", paths)
	}
	thin.Spec.Worker.NetworkMode = datav1alpha1.ContainerNetworkMode
	if paths := fieldsOf(trust.Privileged(thin)); !slices.Equal(paths, []string{"spec.fuse.lifecycle"}) {
		t.Errorf("Thin, worker on the pod network: %q", paths)
	}
	if got := trust.Privileged(&datav1alpha1.Dataset{}); len(got) != 0 {
		t.Errorf("a Dataset: %v", got)
	}
}

func fieldsOf(vs []trust.Value) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Path)
	}
	return out
}

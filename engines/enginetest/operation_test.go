package enginetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
)

// chart is a chart whose templates are the given files' text.
func chart(templates map[string]string) engines.OperationRelease {
	fsys := fstest.MapFS{"Chart.yaml": {Data: []byte("apiVersion: v2\nname: op\nversion: 0.1.0\n")}}
	for name, text := range templates {
		fsys["templates/"+name] = &fstest.MapFile{Data: []byte(text)}
	}
	return engines.OperationRelease{Chart: fsys, Values: map[string]any{}}
}

const (
	job     = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: {{ .Release.Name }}}\nspec: {template: {spec: {containers: [{name: c, image: i}]}}}\n"
	cronJob = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: {{ .Release.Name }}}\nspec: {schedule: '@daily', jobTemplate: {spec: {template: {spec: {containers: [{name: c}]}}}}}\n"
)

func TestRenderOperation(t *testing.T) {
	op := enginetest.RenderOperation(t, chart(map[string]string{"job.yaml": job}), "load", "ns")
	if op.Job == nil || op.CronJob != nil || op.Pod().Spec.Containers[0].Image != "i" || len(op.Containers()) != 1 {
		t.Errorf("decoded %+v", op)
	}
	op = enginetest.RenderOperation(t, chart(map[string]string{"cronjob.yaml": cronJob}), "load", "ns")
	if op.CronJob == nil || op.Pod().Spec.Containers[0].Name != "c" {
		t.Errorf("decoded %+v", op)
	}
	for name, templates := range map[string]map[string]string{
		"no workload":          {"job.yaml": ""},
		"two workloads":        {"job.yaml": job, "cronjob.yaml": cronJob},
		"a second object":      {"job.yaml": job + "---\n" + strings.ReplaceAll(job, "{{ .Release.Name }}", "other")},
		"a workload misnamed":  {"job.yaml": strings.ReplaceAll(job, "{{ .Release.Name }}", "other")},
		"another template":     {"job.yaml": job, "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"},
		"an unknown Job field": {"job.yaml": job + "extra: 1\n"},
	} {
		if r := record(t, func(tb testing.TB) { enginetest.RenderOperation(tb, chart(templates), "load", "ns") }); !r.fatal {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestGoldenCase(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := filepath.Join(enginetest.GoldenDir, "case")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "templates_a.yaml"), []byte("kind: A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := record(t, func(tb testing.TB) {
		enginetest.GoldenCase(tb, "case", map[string]string{"templates/a.yaml": "kind: A\n"}, []string{"templates/a.yaml"})
	}); len(r.failures) != 0 {
		t.Errorf("the same manifest fails: %q", r.failures)
	}
	if r := record(t, func(tb testing.TB) {
		enginetest.GoldenCase(tb, "other", map[string]string{"templates/a.yaml": "kind: A\n"}, []string{"templates/a.yaml"})
	}); !r.fatal {
		t.Error("a case without golden files passes")
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "B": "two"}
	for in, want := range map[string]string{
		"$(A)":        "1",
		"$(A)$(B)":    "1two",
		"$$(A)":       "$(A)",
		"$(C)":        "$(C)",
		"$A":          "$A",
		"${A}":        "${A}",
		"a$":          "a$",
		"$(A":         "$(A",
		"$(x $$ $(A)": "$(x $$ $(A)", // the name runs to the first )
		"$(x $$":      "$(x $",       // unterminated: "$(" kept, the rest read on
		"$$$$":        "$$",
	} {
		if got := enginetest.Expand(in, env); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
	c := enginetest.Effective(corev1.Container{
		Command: []string{"echo", "$(A)", "$(S)"},
		Env:     []corev1.EnvVar{{Name: "S", ValueFrom: &corev1.EnvVarSource{}}, {Name: "A", Value: "a-$(S)"}, {Name: "B", Value: "$(A)$(C)"}},
	})
	if got := strings.Join(c.Command, " "); got != "echo a-<S> <S>" || c.Env[2].Value != "a-<S>$(C)" {
		t.Errorf("effective command %q, env %+v", got, c.Env)
	}
}

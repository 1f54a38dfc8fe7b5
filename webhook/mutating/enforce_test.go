package mutating

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sluice-data/sluice/policies/enforcement"
	"github.com/sluice-data/sluice/webhook/decision"
)

func enforcementPolicy(t *testing.T, v map[string]any) *enforcement.Policy {
	t.Helper()
	p, err := enforcement.Parse(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fullDecision() *decision.Mutating {
	return &decision.Mutating{
		Warnings: []string{"w"},
		Affinity: decision.Affinity{Preferred: []corev1.PreferredSchedulingTerm{{Weight: 100,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "fluid.io/s-a-d", Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}}}}},
		MountPropagation: []decision.MountPropagation{{Volume: "data", Mode: corev1.MountPropagationHostToContainer}},
		Annotations:      map[string]string{"fluid.io/datasets-in-use": "d"},
		Sidecars:         []decision.Sidecar{{Volume: "data", Dataset: "a/d"}},
		VolumeRewrites:   []decision.VolumeRewrite{{Volume: "data", HostPath: "/runtime-mnt/x"}},
	}
}

// TestEnforceMutationRules: a mutation rule in dryrun, or excepted, drops
// its part of the decision (the shared decision itself unchanged), and
// each rule with something to do gets a verdict the annotation reports.
func TestEnforceMutationRules(t *testing.T) {
	p := enforcementPolicy(t, map[string]any{
		"rules":      map[string]any{"sidecar": map[string]any{"mode": "dryrun"}},
		"exceptions": map[string]any{"x": map[string]any{"rules": []any{"affinity"}, "names": []any{"excepted"}}},
	})
	shared := fullDecision()
	d, verdicts, annotation := enforce(p, newDecided(shared), enforcement.Object{Namespace: "a", Name: "excepted"}, time.Now(), false)
	if len(d.Sidecars) != 0 || len(d.VolumeRewrites) != 0 || len(d.Affinity.Preferred) != 0 {
		t.Fatalf("dryrun sidecar and excepted affinity applied: %+v", d)
	}
	if len(d.MountPropagation) != 1 || len(d.Annotations) != 1 {
		t.Fatalf("the other rules were dropped: %+v", d)
	}
	if len(shared.Sidecars) != 1 || len(shared.Affinity.Preferred) != 1 {
		t.Fatal("enforce changed the shared decision")
	}
	got := map[string]enforcement.Outcome{}
	for _, v := range verdicts {
		got[v.Rule] = v.Outcome
	}
	want := map[string]enforcement.Outcome{"affinity": enforcement.Excepted, "sidecar": enforcement.DryRunned,
		"mount-propagation": enforcement.Applied, "pod-metadata": enforcement.Applied}
	if len(got) != len(want) {
		t.Fatalf("verdicts %+v, want %v", verdicts, want)
	}
	for r, o := range want {
		if got[r] != o {
			t.Errorf("rule %s: %s, want %s", r, got[r], o)
		}
	}
	if a := "mount-propagation: HostToContainer on volume data; pod-metadata: annotation fluid.io/datasets-in-use"; annotation != a || mutationsAnnotation(verdicts) != a {
		t.Errorf("annotation %q (of the verdicts %q)", annotation, mutationsAnnotation(verdicts))
	}
	// Every rule applied: the annotation worked out with the decision is
	// the one the verdicts make.
	_, all, annotation := enforce(nil, newDecided(shared), enforcement.Object{Namespace: "a"}, time.Now(), false)
	if a := mutationsAnnotation(all); a != annotation || !strings.Contains(a, "affinity: preferred fluid.io/s-a-d (100)") || !strings.Contains(a, "sidecar: FUSE sidecar for volume data (dataset a/d)") {
		t.Errorf("annotation without enforcement %q, of the verdicts %q", annotation, a)
	}
}

// TestEnforceDenials: a deny rule in warn mode admits with a warning (the
// shared warnings unchanged); in dryrun silently; mutations then apply.
func TestEnforceDenials(t *testing.T) {
	p := enforcementPolicy(t, map[string]any{"rules": map[string]any{
		"dataset-not-bound": map[string]any{"mode": "warn"}, "unknown-platform": map[string]any{"mode": "dryrun"}}})
	shared := fullDecision()
	shared.Deny = []decision.Denial{{Rule: "dataset-not-bound", Message: "not bound"}, {Rule: "unknown-platform", Message: "no such platform"}}
	d, verdicts, _ := enforce(p, newDecided(shared), enforcement.Object{Namespace: "a"}, time.Now(), false)
	if len(d.Deny) != 0 || len(d.Warnings) != 2 || !strings.Contains(d.Warnings[1], "not bound (rule dataset-not-bound, in warn mode") || len(shared.Warnings) != 1 {
		t.Fatalf("deny %v, warnings %q (shared %q)", d.Deny, d.Warnings, shared.Warnings)
	}
	if len(verdicts) != 2+4 || len(d.Sidecars) != 1 {
		t.Fatalf("verdicts %+v, sidecars %v: the admitted Pod is mutated", verdicts, d.Sidecars)
	}
	denied, only, annotation := enforce(nil, newDecided(shared), enforcement.Object{Namespace: "a"}, time.Now(), false)
	if len(denied.Deny) != 2 || len(only) != 2 || annotation != "" {
		t.Fatalf("without enforcement: deny %v, verdicts %+v (no mutation verdicts for a denied Pod)", denied.Deny, only)
	}
}

// TestMutationsAnnotationDescribesEveryRule: the annotation of a decision
// with something for every mutation rule, each rule's description a part
// of it (the verdicts' messages).
func TestMutationsAnnotationDescribesEveryRule(t *testing.T) {
	d := fullDecision()
	d.Affinity.Required = []corev1.NodeSelectorRequirement{{Key: "fluid.io/f-a-d"}}
	d.Affinity.RequiredTerms = []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "fluid.io/s-a-d"}, {Key: "zone"}},
		MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name"}}}}
	d.Affinity.Preferred = append(d.Affinity.Preferred, corev1.PreferredSchedulingTerm{Weight: 120,
		Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "region"}}}})
	d.AppPostStart = []decision.AppPostStart{{Container: "app"}, {Container: "side"}}
	d.Annotations["b.example/x"] = "1"
	d.Labels = map[string]string{"done.sidecar.fluid.io/inject": "true"}
	d.VolumeRewrites = append(d.VolumeRewrites, decision.VolumeRewrite{Volume: "other", HostPath: "/runtime-mnt/y"})
	want := map[string]string{
		"affinity":          "required fluid.io/f-a-d, fluid.io/s-a-d+zone+metadata.name; preferred fluid.io/s-a-d (100), region (120)",
		"app-poststart":     "postStart hook on container app, postStart hook on container side",
		"mount-propagation": "HostToContainer on volume data",
		"pod-metadata":      "annotation b.example/x, annotation fluid.io/datasets-in-use, label done.sidecar.fluid.io/inject",
		"sidecar":           "FUSE sidecar for volume data (dataset a/d), volume other as hostPath /runtime-mnt/y",
	}
	dd := newDecided(d)
	var parts []string
	for i, r := range mutationRules {
		if !dd.present[i] || dd.described[i] != want[r.name] {
			t.Errorf("rule %s: present %v, described %q, want %q", r.name, dd.present[i], dd.described[i], want[r.name])
		}
		parts = append(parts, r.name+": "+want[r.name])
	}
	if a := strings.Join(parts, "; "); dd.annotation != a {
		t.Errorf("annotation\n%q, want\n%q", dd.annotation, a)
	}
	_, verdicts, annotation := enforce(nil, dd, enforcement.Object{Namespace: "a"}, time.Now(), false)
	if mutationsAnnotation(verdicts) != annotation {
		t.Errorf("the verdicts' annotation %q differs from the decision's %q", mutationsAnnotation(verdicts), annotation)
	}
}

// A long annotation is cut at maxMutationsAnnotation.
func TestMutationsAnnotationIsBounded(t *testing.T) {
	d := &decision.Mutating{}
	for i := range 400 {
		d.MountPropagation = append(d.MountPropagation, decision.MountPropagation{Volume: strings.Repeat("v", 20) + string(rune('a'+i%26)), Mode: corev1.MountPropagationHostToContainer})
	}
	dd := newDecided(d)
	if len(dd.annotation) != maxMutationsAnnotation+len("…") || !strings.HasSuffix(dd.annotation, "…") || len(dd.described[2]) < maxMutationsAnnotation {
		t.Errorf("annotation of %d bytes, description of %d", len(dd.annotation), len(dd.described[2]))
	}
}

package enginetest_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/fake"
)

// recorder is a testing.TB that records failures instead of failing, so
// that the helpers' own failures can be checked.
type recorder struct {
	testing.TB
	failures []string
	fatal    bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// record runs f with a recorder, in a goroutine of its own so that a fatal
// failure ends f only.
func record(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestGolden(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(enginetest.GoldenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(enginetest.GoldenDir, "templates_a.yaml"), []byte("kind: A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	templates := []string{"templates/a.yaml"}
	if r := record(t, func(tb testing.TB) {
		enginetest.Golden(tb, map[string]string{"templates/a.yaml": "kind: A\n"}, templates)
	}); len(r.failures) != 0 {
		t.Errorf("the same manifest fails: %q", r.failures)
	}
	r := record(t, func(tb testing.TB) {
		enginetest.Golden(tb, map[string]string{"templates/a.yaml": "kind: B\n"}, templates)
	})
	if len(r.failures) != 1 || !strings.Contains(r.failures[0], "templates/a.yaml differs") {
		t.Errorf("a changed manifest: %q", r.failures)
	}
	r = record(t, func(tb testing.TB) {
		enginetest.Golden(tb, map[string]string{"templates/a.yaml": "kind: A\n", "templates/b.yaml": "kind: B\n"}, templates)
	})
	if !r.fatal || !strings.Contains(r.failures[0], "templates/b.yaml") {
		t.Errorf("an extra template: %q", r.failures)
	}
	r = record(t, func(tb testing.TB) {
		enginetest.Golden(tb, map[string]string{"templates/c.yaml": "kind: C\n"}, []string{"templates/c.yaml"})
	})
	if !r.fatal || !strings.Contains(r.failures[0], "go test -update") {
		t.Errorf("a missing golden file: %q", r.failures)
	}
}

func TestRenderAndDecode(t *testing.T) {
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "default"}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: "default"}, Spec: datav1alpha1.AlluxioRuntimeSpec{Replicas: 2}}
	values, out := enginetest.Render(t, fake.Engine{}, nil, ds, rt)
	if values["name"] != "demo" || len(out) == 0 {
		t.Fatalf("values %v, rendered %v", values, out)
	}
	var worker string
	for name, m := range out {
		if strings.Contains(m, "kind: StatefulSet") {
			worker = name
		}
	}
	sts := enginetest.Decode[appsv1.StatefulSet](t, out, worker)
	if sts.Name == "" || *sts.Spec.Replicas != 2 {
		t.Errorf("decoded %s: %s with %v replicas", worker, sts.Name, sts.Spec.Replicas)
	}
	if got := enginetest.DecodeOptional[appsv1.StatefulSet](t, out, "templates/absent.yaml"); got != nil {
		t.Errorf("an absent template decodes to %+v", got)
	}
	if r := record(t, func(tb testing.TB) { enginetest.Decode[appsv1.StatefulSet](tb, out, "templates/absent.yaml") }); !r.fatal {
		t.Error("Decode accepts an absent template")
	}
	unknown := map[string]string{"templates/x.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nspec:\n  replica: 2\n"}
	if r := record(t, func(tb testing.TB) { enginetest.Decode[appsv1.StatefulSet](tb, unknown, "templates/x.yaml") }); !r.fatal {
		t.Error("Decode accepts an unknown field")
	}
	if r := record(t, func(tb testing.TB) { enginetest.Render(tb, fake.Engine{}, nil, ds, &corev1.Pod{}) }); !r.fatal {
		t.Error("Render accepts values the engine rejects")
	}
}

func TestWantInvalid(t *testing.T) {
	err := fmt.Errorf("rendering: %w", engines.Invalid("spec.replicas is %d", -1))
	if r := record(t, func(tb testing.TB) { enginetest.WantInvalid(tb, err, "spec.replicas", "-1") }); len(r.failures) != 0 {
		t.Errorf("an InvalidSpec error naming the field fails: %q", r.failures)
	}
	if r := record(t, func(tb testing.TB) { enginetest.WantInvalid(tb, err, "spec.master") }); r.fatal || len(r.failures) != 1 {
		t.Errorf("an error naming another field: %q", r.failures)
	}
	for _, err := range []error{nil, errors.New("spec.replicas"), &engines.Error{Reason: "Other", Err: errors.New("spec.replicas")}} {
		if r := record(t, func(tb testing.TB) { enginetest.WantInvalid(tb, err, "spec.replicas") }); !r.fatal {
			t.Errorf("%v passes as InvalidSpec", err)
		}
	}
}

// sharedTerm keeps Shared workers off Exclusive workers' nodes, as the charts render it.
var sharedTerm = corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", NamespaceSelector: &metav1.LabelSelector{},
	LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: enginetest.PlacementLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"Exclusive"}}}}}

func worker(namespace string, placement datav1alpha1.PlacementMode, terms ...corev1.PodAffinityTerm) *appsv1.StatefulSet {
	w := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "data-worker", Namespace: namespace}}
	w.Spec.Template.Labels = map[string]string{datav1alpha1.LabelDataset: namespace + "-data", "role": "worker", enginetest.PlacementLabel: string(placement)}
	w.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
	return w
}

func placed(namespace string, placement datav1alpha1.PlacementMode, terms ...corev1.PodAffinityTerm) enginetest.Placed {
	fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "data-fuse", Namespace: namespace}}
	fuse.Spec.Template.Labels = map[string]string{datav1alpha1.LabelDataset: namespace + "-data", "role": "fuse"}
	return enginetest.Placed{Worker: worker(namespace, placement, terms...),
		Others: []enginetest.Pod{{Role: "FUSE", Namespace: fuse.Namespace, Labels: fuse.Spec.Template.Labels}}}
}

func TestRepels(t *testing.T) {
	excl := worker("team-a", datav1alpha1.ExclusiveMode, enginetest.ExclusiveTerm())
	for _, tc := range []struct {
		w    *appsv1.StatefulSet
		pod  enginetest.Pod
		want bool
	}{
		{excl, enginetest.WorkerPod(worker("team-b", datav1alpha1.ShareMode)), true},
		{excl, enginetest.WorkerPod(excl), true},
		{excl, enginetest.Pod{Role: "FUSE", Namespace: "team-a", Labels: map[string]string{datav1alpha1.LabelDataset: "team-a-data"}}, false},
		// A term without namespaceSelector concerns its own namespace only.
		{worker("team-a", datav1alpha1.ShareMode, corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}}), enginetest.WorkerPod(worker("team-b", datav1alpha1.ShareMode)), false},
		{worker("team-b", datav1alpha1.ShareMode, corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}}), enginetest.WorkerPod(worker("team-b", datav1alpha1.ShareMode)), true},
		// A namespaceSelector that selects is not "every namespace".
		{worker("team-a", datav1alpha1.ShareMode, corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}},
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"role": "worker"}}}), enginetest.WorkerPod(worker("team-b", datav1alpha1.ShareMode)), false},
		{worker("team-a", datav1alpha1.ShareMode, sharedTerm), enginetest.WorkerPod(worker("team-b", datav1alpha1.ShareMode)), false},
		{worker("team-a", datav1alpha1.ShareMode), enginetest.WorkerPod(excl), false},
	} {
		if got := enginetest.Repels(t, tc.w, tc.pod); got != tc.want {
			t.Errorf("workers of %s with %+v vs %s pod of %s %v: repels %v, want %v", tc.w.Namespace,
				tc.w.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, tc.pod.Role, tc.pod.Namespace, tc.pod.Labels, got, tc.want)
		}
	}
}

func TestCheckWorkersOnly(t *testing.T) {
	good := func() (exclusive, shared []enginetest.Placed) {
		return []enginetest.Placed{placed("team-a", datav1alpha1.ExclusiveMode, enginetest.ExclusiveTerm()), placed("team-c", datav1alpha1.ExclusiveMode, enginetest.ExclusiveTerm())},
			[]enginetest.Placed{placed("team-b", datav1alpha1.ShareMode, sharedTerm), placed("team-d", datav1alpha1.ShareMode, sharedTerm)}
	}
	if r := record(t, func(tb testing.TB) { e, s := good(); enginetest.CheckWorkersOnly(tb, e, s) }); len(r.failures) != 0 {
		t.Fatalf("Fluid's placement fails: %q", r.failures)
	}
	for name, tc := range map[string]struct {
		breaks func(exclusive, shared []enginetest.Placed)
		want   string
	}{
		"FUSE pods labelled for placement": {func(e, _ []enginetest.Placed) { e[0].Others[0].Labels[enginetest.PlacementLabel] = "Exclusive" }, "team-a FUSE pod labels"},
		"FUSE pods without the dataset":    {func(_, s []enginetest.Placed) { delete(s[1].Others[0].Labels, datav1alpha1.LabelDataset) }, "team-d FUSE pod labels"},
		"wrong placement label": {func(_, s []enginetest.Placed) {
			s[0].Worker.Spec.Template.Labels[enginetest.PlacementLabel] = "Exclusive"
		}, "team-b worker pods"},
		"Exclusive workers repel FUSE": {func(e, _ []enginetest.Placed) {
			e[1].Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector.MatchExpressions[0].Key = datav1alpha1.LabelDataset
		}, "keeps the FUSE pod"},
		"Exclusive workers in their namespace only": {func(e, _ []enginetest.Placed) {
			e[0].Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].NamespaceSelector = nil
		}, "an Exclusive worker of team-a shares its node with a worker of team-c"},
		"Shared workers ignore Exclusive ones": {func(_, s []enginetest.Placed) {
			s[1].Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}, "a Shared worker of team-d may run beside an Exclusive worker"},
		"Shared workers exclusive": {func(_, s []enginetest.Placed) {
			s[0].Worker.Spec.Template.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{enginetest.ExclusiveTerm()}
		}, "a Shared worker of team-b keeps Shared workers of team-d"},
	} {
		exclusive, shared := good()
		tc.breaks(exclusive, shared)
		r := record(t, func(tb testing.TB) { enginetest.CheckWorkersOnly(tb, exclusive, shared) })
		if !strings.Contains(strings.Join(r.failures, "\n"), tc.want) {
			t.Errorf("%s: failures %q, want one with %q", name, r.failures, tc.want)
		}
	}
}

func TestCheckPlacement(t *testing.T) {
	sample := func() (*datav1alpha1.Dataset, *datav1alpha1.JuiceFSRuntime) {
		return &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "sample", Namespace: "default"}},
			&datav1alpha1.JuiceFSRuntime{ObjectMeta: metav1.ObjectMeta{Name: "sample", Namespace: "default"}}
	}
	var rendered []string
	// render renders what the charts render: workers placed by the Dataset, FUSE and masters unplaced.
	render := func(tb testing.TB, ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) map[string]string {
		rendered = append(rendered, fmt.Sprintf("%s/%s %s/%s %q", ds.Namespace, ds.Name, rt.Namespace, rt.Name, ds.Spec.Placement))
		var p enginetest.Placed
		if ds.Spec.Placement == datav1alpha1.ShareMode {
			p = placed(ds.Namespace, datav1alpha1.ShareMode, sharedTerm)
		} else {
			p = placed(ds.Namespace, datav1alpha1.ExclusiveMode, enginetest.ExclusiveTerm())
		}
		fuse := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: rt.Name + "-fuse", Namespace: rt.Namespace}}
		fuse.Spec.Template.Labels = p.Others[0].Labels
		master := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: rt.Name + "-master", Namespace: rt.Namespace}}
		master.Spec.Template.Labels = map[string]string{datav1alpha1.LabelDataset: ds.Namespace + "-" + ds.Name, "role": "master"}
		return map[string]string{"templates/worker-statefulset.yaml": manifest(tb, p.Worker),
			"templates/fuse-daemonset.yaml": manifest(tb, fuse), "templates/master-statefulset.yaml": manifest(tb, master)}
	}
	exclusive, shared := enginetest.CheckPlacement(testing.TB(t), sample, render, true)
	want := `team-a/imagenet team-a/imagenet "Exclusive" team-c/laion team-c/laion "" team-b/coco team-b/coco "Shared" team-d/mnist team-d/mnist "Shared"`
	if got := strings.Join(rendered, " "); got != want {
		t.Errorf("rendered %s\nwant     %s", got, want)
	}
	if len(exclusive) != 2 || len(shared) != 2 || exclusive[1].Worker.Namespace != "team-c" || len(shared[0].Others) != 2 ||
		shared[0].Others[1].Role != "master" || shared[0].Others[1].Namespace != "team-b" {
		t.Errorf("returned %+v, %+v", exclusive, shared)
	}
	r := record(t, func(tb testing.TB) {
		enginetest.CheckPlacement(tb, sample, func(tb testing.TB, ds *datav1alpha1.Dataset, rt *datav1alpha1.JuiceFSRuntime) map[string]string {
			out := render(tb, ds, rt)
			delete(out, "templates/master-statefulset.yaml")
			return out
		}, true)
	})
	if !r.fatal || !strings.Contains(r.failures[0], "master-statefulset.yaml") {
		t.Errorf("an engine with masters that renders none: %q", r.failures)
	}
}

func manifest(t testing.TB, obj any) string {
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDecodeRelease(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: team-a}\ndata: {k: \"v $$(X)\"}\n"
	sts := "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: w, namespace: team-a}\nspec:\n  template:\n    spec:\n      containers:\n" +
		"      - {name: c, command: [run, \"a $$(X) b\"], args: [\"$(X)\"], env: [{name: X, value: x}]}\n"
	want := map[string]string{"templates/cm.yaml": "ConfigMap", "templates/sts.yaml": "StatefulSet"}
	rel := enginetest.DecodeRelease(t, map[string]string{"templates/cm.yaml": cm, "templates/sts.yaml": sts}, "team-a", want)
	if r := record(t, func(tb testing.TB) { rel.Runs(tb, "a $(X) b", "x"); rel.Reads(tb, "x"); rel.Carries(tb, "v $$(X)") }); len(r.failures) != 0 {
		t.Errorf("strings the release holds: %q", r.failures)
	}
	if r := record(t, func(tb testing.TB) { rel.Runs(tb, "$$(X)"); rel.Reads(tb, "$(X)"); rel.Carries(tb, "pwned") }); len(r.failures) != 3 {
		t.Errorf("strings the release does not hold: %q", r.failures)
	}
	for name, out := range map[string]map[string]string{
		"a second object":        {"templates/cm.yaml": cm + "---\n" + cm, "templates/sts.yaml": sts},
		"another namespace":      {"templates/cm.yaml": strings.Replace(cm, "team-a", "kube-system", 1), "templates/sts.yaml": sts},
		"another kind":           {"templates/cm.yaml": strings.Replace(cm, "ConfigMap", "Secret", 1), "templates/sts.yaml": sts},
		"an unknown field":       {"templates/cm.yaml": cm + "extra: 1\n", "templates/sts.yaml": sts},
		"a template left out":    {"templates/cm.yaml": cm},
		"an unexpected template": {"templates/cm.yaml": cm, "templates/sts.yaml": sts, "templates/x.yaml": cm},
	} {
		if r := record(t, func(tb testing.TB) { enginetest.DecodeRelease(tb, out, "team-a", want) }); !r.fatal {
			t.Errorf("%s: DecodeRelease accepts it", name)
		}
	}
}

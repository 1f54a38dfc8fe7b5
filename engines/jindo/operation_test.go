package jindo_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/enginetest"
	"github.com/sluice-data/sluice/engines/jindo"
)

// dataLoadFull sets every DataLoad field and every load option.
func dataLoadFull() *datav1alpha1.DataLoad {
	dl := enginetest.DataLoad()
	s := &dl.Spec
	s.LoadMetadata = true
	s.Target = []datav1alpha1.TargetPath{{Path: "/train/n01440764", Replicas: 2}, {Path: "/labels"}}
	s.Options = map[string]string{"atomicCache": "true", "loadMemorydata": "true", "dryrun": "false", "forceload": "true", "threadNum": "8", "filter": ".*\\.JPEG$"}
	s.PodMetadata = datav1alpha1.PodMetadata{Labels: map[string]string{"team": "vision"}, Annotations: map[string]string{"owner": "ml@example.com"}}
	s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
		{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
	s.Tolerations = []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	s.NodeSelector = map[string]string{"disk": "nvme"}
	s.SchedulerName = "volcano"
	s.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}
	s.Policy, s.Schedule = datav1alpha1.Cron, "30 1 * * *"
	return dl
}

func renderOp(t *testing.T, op datav1alpha1.OperationObject, rt *datav1alpha1.JindoRuntime, affinity *corev1.Affinity) enginetest.Operation {
	t.Helper()
	ds, sampleRT := sample()
	if rt == nil {
		rt = sampleRT
	}
	rel, err := jindo.Engine{}.Operation(engines.OperationRequest{Op: op, Dataset: ds, Runtime: rt, Affinity: affinity})
	if err != nil {
		t.Fatal(err)
	}
	return enginetest.RenderOperation(t, rel, op.GetName()+"-op", "team-a")
}

// TestOperationGolden renders a DataLoad with its defaults and with every
// field set, and compares with testdata/golden/<case> (go test -update
// rewrites them after a deliberate change).
func TestOperationGolden(t *testing.T) {
	for name, tc := range map[string]struct {
		op       *datav1alpha1.DataLoad
		affinity *corev1.Affinity
	}{"dataload-default": {enginetest.DataLoad(), nil}, "dataload-full": {dataLoadFull(), enginetest.RunAfterAffinity}} {
		t.Run(name, func(t *testing.T) {
			op := renderOp(t, tc.op, nil, tc.affinity)
			enginetest.GoldenCase(t, name, op.Out, op.Templates())
		})
	}
}

// TestLoadSteps: one jindocache -load per target, each a client of the
// runtime (its namespace address, configuration and credentials).
func TestLoadSteps(t *testing.T) {
	op := renderOp(t, dataLoadFull(), nil, nil)
	var got [][]string
	for _, c := range op.Containers() {
		c = enginetest.Effective(c)
		got = append(got, c.Command)
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		if c.Image != "registry.cn-shanghai.aliyuncs.com/jindofs/smartdata:6.2.0" || env["CLIENT_NAMESPACE_RPC_ADDRESS"] == "" || len(c.VolumeMounts) != 4 {
			t.Errorf("step %s: image %s, env %v, mounts %+v", c.Name, c.Image, env, c.VolumeMounts)
		}
	}
	flags := []string{"-meta", "-data", "-atomic", "-m", "-f", "-thread", "8", "-filter", `.*\.JPEG$`, "-s", "-R", "-replica"}
	want := [][]string{
		append(append([]string{"jindocache", "-load"}, flags...), "2", "jindo:///train/n01440764"),
		append(append([]string{"jindocache", "-load"}, flags...), "1", "jindo:///labels"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	// A memory tier loads into memory unless loadMemorydata says otherwise.
	_, rt := sample()
	rt.Spec.TieredStore.Levels[0].MediumType = datav1alpha1.Memory
	rt.Spec.TieredStore.Levels[0].QuotaList = "1Gi,1Gi"
	rt.Spec.Worker.Resources.Limits[corev1.ResourceMemory] = resource.MustParse("8Gi")
	d := enginetest.Effective(renderOp(t, enginetest.DataLoad(), rt, nil).Pod().Spec.Containers[0])
	if want := []string{"jindocache", "-load", "-data", "-m", "-s", "-R", "-replica", "1", "jindo:///"}; !cmp.Equal(d.Command, want) {
		t.Errorf("the default load on a memory tier runs %q, want %q", d.Command, want)
	}
}

func TestOperationRefusesWhatItCannotHonour(t *testing.T) {
	load := func(mutate func(*datav1alpha1.DataLoadSpec)) *datav1alpha1.DataLoad {
		dl := enginetest.DataLoad()
		mutate(&dl.Spec)
		return dl
	}
	for _, tc := range []struct {
		name    string
		op      *datav1alpha1.DataLoad
		runtime func(*datav1alpha1.JindoRuntime) // changes sample()'s runtime
		field   string                           // the error names it
	}{
		{"relative path", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "train"}} }), nil, "spec.target[0].path"},
		{"negative replicas", load(func(s *datav1alpha1.DataLoadSpec) { s.Target = []datav1alpha1.TargetPath{{Path: "/a", Replicas: -1}} }), nil, "spec.target[0].replicas"},
		{"unknown option", load(func(s *datav1alpha1.DataLoadSpec) { s.Options = map[string]string{"threads": "8"} }), nil, "spec.options[\"threads\"]"},
		{"a cache list's plain keys", load(func(s *datav1alpha1.DataLoadSpec) { s.Options = map[string]string{"accessKeySecret": "x"} }), nil, "spec.options[\"accessKeySecret\"]"},
		{"not a boolean", load(func(s *datav1alpha1.DataLoadSpec) { s.Options = map[string]string{"atomicCache": "yes please"} }), nil, "spec.options[atomicCache]"},
		{"not a thread count", load(func(s *datav1alpha1.DataLoadSpec) { s.Options = map[string]string{"threadNum": "0"} }), nil, "spec.options[threadNum]"},
		{"FUSE alone", enginetest.DataLoad(), func(rt *datav1alpha1.JindoRuntime) { rt.Spec.Master.Disabled, rt.Spec.Worker.Disabled = true, true }, "spec.master.disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, rt := sample()
			if tc.runtime != nil {
				tc.runtime(rt)
			}
			_, err := jindo.Engine{}.Operation(engines.OperationRequest{Op: tc.op, Dataset: ds, Runtime: rt})
			enginetest.WantInvalid(t, err, tc.field)
		})
	}
}

package mutating

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	evanjsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/open-policy-agent/opa/v1/ast"
	"gomodules.xyz/jsonpatch/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/webhook/internal/regovalue"
	"github.com/sluice-data/sluice/webhook/snapshot"
)

// canonicalOps returns the operations as JSON with object keys sorted,
// sorted, so that patches compare as multisets (jsonpatch orders the
// operations of an object by map iteration).
func canonicalOps(t *testing.T, ops []jsonpatch.JsonPatchOperation) []string {
	t.Helper()
	out := make([]string, 0, len(ops))
	for _, op := range ops {
		raw, err := json.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		norm, _ := json.Marshal(v)
		out = append(out, string(norm))
	}
	slices.Sort(out)
	return out
}

// jsonDiff is what structDiff replaces: both sides marshalled and compared
// by jsonpatch.
func jsonDiff(t *testing.T, from, to any, path string) []jsonpatch.JsonPatchOperation {
	t.Helper()
	ops, err := diff(from, to)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops {
		ops[i].Path = path + ops[i].Path
	}
	return ops
}

func checkSameDiff(t *testing.T, name string, from, to any, path string) {
	t.Helper()
	got, unequal, err := structDiff(from, to, path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if unequal && equality.Semantic.DeepEqual(from, to) {
		t.Fatalf("%s: structDiff found them unequal, equality.Semantic equal", name)
	}
	want := jsonDiff(t, from, to, path)
	a, _ := json.Marshal(from)
	b, _ := json.Marshal(to)
	if g, w := canonicalOps(t, got), canonicalOps(t, want); !slices.Equal(g, w) {
		t.Fatalf("%s: structDiff differs from jsonpatch\nfrom %s\nto   %s\ngot  %v\nwant %v", name, a, b, g, w)
	}
	// The operations' order matters within arrays: applied in order, the
	// patch must turn from into to.
	doc, want2 := []byte(`{"spec":{"x":`+string(a)+`}}`), []byte(`{"spec":{"x":`+string(b)+`}}`)
	if path == "" {
		doc, want2 = a, b
	}
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := evanjsonpatch.DecodePatch(raw)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		t.Fatalf("%s: patch %s does not apply to %s: %v", name, raw, doc, err)
	}
	if !evanjsonpatch.Equal(patched, want2) {
		t.Fatalf("%s: patch %s turns %s into %s, want %s", name, raw, doc, patched, want2)
	}
}

func fixturePods(t *testing.T) []*corev1.Pod {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "policies", "testdata", "mutating", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var pods []*corev1.Pod
	for _, f := range files {
		if base := filepath.Base(f); base != "pod.yaml" && base != "expected.yaml" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := &corev1.Pod{}
		if err := yaml.Unmarshal(data, p); err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	if len(pods) == 0 {
		t.Fatal("no fixture Pods")
	}
	return pods
}

// TestStructDiffMatchesJSONPatch compares structDiff with the marshal and
// jsonpatch diff it replaces on the fixture Pods and on many random changes
// of them, over the fields mutators change and over whole Pods.
func TestStructDiffMatchesJSONPatch(t *testing.T) {
	pods := fixturePods(t)
	for i, a := range pods {
		for j, b := range pods {
			checkSameDiff(t, fmt.Sprintf("fixtures %d->%d", i, j), a, b, "")
		}
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 1500; i++ {
		a := pods[rng.Intn(len(pods))].DeepCopy()
		for n := rng.Intn(3); n > 0; n-- {
			perturb(rng, a)
		}
		b := a.DeepCopy()
		for n := 1 + rng.Intn(4); n > 0; n-- {
			perturb(rng, b)
		}
		name := fmt.Sprintf("random %d", i)
		checkSameDiff(t, name, a, b, "")
		for _, f := range [][2]any{
			{a.Labels, b.Labels}, {a.Annotations, b.Annotations}, {a.Spec.Volumes, b.Spec.Volumes},
			{a.Spec.InitContainers, b.Spec.InitContainers}, {a.Spec.Containers, b.Spec.Containers}, {a.Spec.Affinity, b.Spec.Affinity},
		} {
			checkSameDiff(t, name, f[0], f[1], "/spec/x")
		}
	}
}

// perturb makes one random change of the kind mutators (or users) make.
func perturb(rng *rand.Rand, p *corev1.Pod) {
	pick := func(s ...string) string { return s[rng.Intn(len(s))] }
	container := func() *corev1.Container {
		cs := &p.Spec.Containers
		if rng.Intn(3) == 0 {
			cs = &p.Spec.InitContainers
		}
		if len(*cs) == 0 || rng.Intn(5) == 0 {
			*cs = append(*cs, corev1.Container{Name: pick("a", "b", "fuse")})
		}
		return &(*cs)[rng.Intn(len(*cs))]
	}
	switch rng.Intn(25) {
	case 0:
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[pick("a", "b/c", "x~y", "done.sidecar.fluid.io/inject")] = pick("true", "false", "")
	case 1:
		for k := range p.Labels {
			delete(p.Labels, k)
			break
		}
	case 2:
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[pick("fluid.io/datasets-in-use", "note")] = pick("a", "a,b")
	case 3:
		p.Annotations = nil
	case 4:
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: pick("data", "fuse-mount", "cache"),
			VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}})
	case 5:
		if n := len(p.Spec.Volumes); n > 0 {
			i := rng.Intn(n)
			p.Spec.Volumes[i].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/runtime-mnt/x", Type: ptr.To(corev1.HostPathDirectoryOrCreate)}}
		}
	case 6:
		if n := len(p.Spec.Volumes); n > 0 {
			p.Spec.Volumes = slices.Delete(p.Spec.Volumes, 0, 1+rng.Intn(n))
		}
	case 7:
		c := container()
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: pick("/data", "/mnt")})
	case 8:
		c := container()
		for i := range c.VolumeMounts {
			c.VolumeMounts[i].MountPropagation = ptr.To(corev1.MountPropagationMode(pick("HostToContainer", "Bidirectional")))
		}
	case 9:
		c := container()
		c.SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(rng.Intn(2) == 0),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}}
	case 10:
		c := container()
		if c.SecurityContext != nil {
			c.SecurityContext.Privileged = nil
			c.SecurityContext.Capabilities = nil
		}
	case 11:
		c := container()
		c.Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(pick("1Gi", "1024Mi", "2Gi"))}}
	case 12:
		c := container()
		c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", pick("a", "b")}}},
			PeriodSeconds: int32(rng.Intn(3))}
	case 13:
		c := container()
		c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromString(pick("http", "8080"))}}}
	case 14:
		c := container()
		c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	case 15:
		c := container()
		c.Env = append(c.Env, corev1.EnvVar{Name: "X", Value: pick("1", "")})
	case 16:
		p.Spec.Affinity = nil
	case 17:
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		na := p.Spec.Affinity.NodeAffinity
		na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{
			Weight: int32(rng.Intn(100)), Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: []string{"true"}}}}})
	case 18:
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		na := p.Spec.Affinity.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || rng.Intn(2) == 0 {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
		}
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) > 0 {
			terms[0].MatchExpressions = append(terms[0].MatchExpressions, corev1.NodeSelectorRequirement{Key: pick("a", "b"), Operator: corev1.NodeSelectorOpExists})
		}
	case 19:
		p.CreationTimestamp = metav1.Unix(int64(rng.Intn(2)), 0)
	case 20:
		c := container()
		c.Image = pick("busybox", "fuse:1", "")
	case 21:
		c := container()
		c.VolumeMounts = nil
	case 22:
		// nil and empty collections: equal to equality.Semantic, not to JSON
		c := container()
		switch rng.Intn(3) {
		case 0:
			c.Command = []string{}
		case 1:
			c.Command = nil
		default:
			c.Resources.Limits = corev1.ResourceList{}
		}
	case 23:
		if p.Labels == nil {
			p.Labels = map[string]string{}
		} else if len(p.Labels) == 0 {
			p.Labels = nil
		}
	case 24:
		c := container()
		c.SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{}}}
	}
}

// TestInputValueMatchesJSONOnRandomPods checks the direct conversion of the
// policy input against the JSON round trip on the fixture Pods and random
// changes of them.
func TestInputValueMatchesJSONOnRandomPods(t *testing.T) {
	pods := fixturePods(t)
	rng := rand.New(rand.NewSource(2))
	vols := []snapshot.DatasetVolume{{Volume: "data", Claim: "c", Dataset: snapshot.DatasetFacts{Namespace: "ns", Name: "d", Phase: "Bound",
		Runtime:    snapshot.RuntimeFacts{Type: "juicefs", FuseNodeSelector: map[string]string{"a": "b"}},
		Localities: map[string][]corev1.NodeSelectorRequirement{"fluid.io/node": {{Key: "k", Operator: "In", Values: []string{"true"}}}}}}}
	for i := 0; i < 500; i++ {
		p := pods[rng.Intn(len(pods))].DeepCopy()
		for n := rng.Intn(6); n > 0; n-- {
			perturb(rng, p)
		}
		in := NewInput(Request{Pod: p, Operation: "CREATE", Namespace: "ns", DryRun: rng.Intn(2) == 0}, vols[:rng.Intn(2)], snapshot.Namespace{Name: "ns"}, rng.Intn(2) == 0)
		got, err := regovalue.ToValue(&in)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ast.ValueFromReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Fatalf("direct conversion differs from JSON:\n got %v\nwant %v", got, want)
		}
	}
}

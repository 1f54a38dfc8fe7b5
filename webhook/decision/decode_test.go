package decision

import (
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	corev1 "k8s.io/api/core/v1"
)

func parse(t *testing.T, doc string) ast.Value {
	t.Helper()
	v, err := ast.ValueFromReader(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDecodeMutating(t *testing.T) {
	d, err := DecodeMutating(parse(t, `{
		"deny": [], "warnings": ["w"],
		"affinity": {"required": [{"key": "k", "operator": "In", "values": ["true"]}],
		             "requiredTerms": [{"matchExpressions": [{"key": "a", "operator": "In", "values": ["true"]}]}, {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}],
		             "preferred": [{"weight": 50, "preference": {"matchExpressions": [{"key": "z", "operator": "Exists"}]}}]},
		"mountPropagation": [{"volume": "data", "mode": "HostToContainer"}],
		"annotations": {"a": "b"}, "labels": {},
		"volumeRewrites": [{"volume": "data", "hostPath": "/mnt", "subPath": "train"}],
		"sidecars": [{"volume": "data", "dataset": "ns/d", "mountPath": "/mnt", "mode": "native", "unprivileged": true, "readinessGate": false,
		              "env": [{"name": "A", "value": "1"}], "resources": {"limits": {"memory": "2Gi", "cpu": 1}, "requests": {"cpu": "500m"}},
		              "uniqueHostPath": true, "dropVolumes": ["cache-dir"], "exitWithApps": true}],
		"appPostStart": [{"container": "app", "mountPaths": ["/data"], "timeoutSeconds": 60}]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Affinity.Required[0].Key != "k" || d.Affinity.Preferred[0].Weight != 50 || d.Affinity.Preferred[0].Preference.MatchExpressions[0].Operator != corev1.NodeSelectorOpExists {
		t.Errorf("affinity = %+v", d.Affinity)
	}
	if rt := d.Affinity.RequiredTerms; len(rt) != 2 || rt[0].MatchExpressions[0].Key != "a" || rt[1].MatchFields[0].Values[0] != "n1" {
		t.Errorf("requiredTerms = %+v", rt)
	}
	if (&Mutating{Affinity: Affinity{RequiredTerms: d.Affinity.RequiredTerms}}).Empty() {
		t.Error("a decision with only required terms reports Empty")
	}
	if d.Sidecars[0].Mode != NativeSidecar || !d.Sidecars[0].Unprivileged || d.Sidecars[0].ReadinessGate {
		t.Errorf("sidecars = %+v", d.Sidecars)
	}
	if env := d.Sidecars[0].Env; len(env) != 1 || env[0] != (corev1.EnvVar{Name: "A", Value: "1"}) {
		t.Errorf("env = %+v", env)
	}
	r := d.Sidecars[0].Resources
	if r.Limits.Memory().String() != "2Gi" || r.Limits.Cpu().String() != "1" || r.Requests.Cpu().String() != "500m" || len(r.Requests) != 1 {
		t.Errorf("resources = %+v", r)
	}
	if !d.Sidecars[0].UniqueHostPath || !d.Sidecars[0].ExitWithApps || len(d.Sidecars[0].DropVolumes) != 1 || d.Sidecars[0].DropVolumes[0] != "cache-dir" {
		t.Errorf("sidecars = %+v", d.Sidecars)
	}
	if a := d.AppPostStart; len(a) != 1 || a[0].Container != "app" || len(a[0].MountPaths) != 1 || a[0].MountPaths[0] != "/data" || a[0].TimeoutSeconds != 60 {
		t.Errorf("appPostStart = %+v", a)
	}
	if (&Mutating{AppPostStart: d.AppPostStart}).Empty() {
		t.Error("a decision with only app postStart hooks reports Empty")
	}
	if rw := d.VolumeRewrites; len(rw) != 1 || rw[0] != (VolumeRewrite{Volume: "data", HostPath: "/mnt", SubPath: "train"}) {
		t.Errorf("volumeRewrites = %+v", rw)
	}
	if d.Annotations["a"] != "b" || d.Warnings[0] != "w" || d.MountPropagation[0].Mode != corev1.MountPropagationHostToContainer {
		t.Errorf("decision = %+v", d)
	}
	if d.Empty() {
		t.Error("a decision with changes reports Empty")
	}
}

func TestDecodeMutatingRejectsWrongShapes(t *testing.T) {
	tests := []struct {
		doc  string
		want string
	}{
		{`[]`, "(document): want an object"},
		{`{"sidecar": []}`, ".sidecar: unknown field"},
		{`{"sidecars": "x"}`, ".sidecars: want a list"},
		{`{"affinity": {"preferred": [{"weight": "heavy"}]}}`, ".affinity.preferred[0].weight: want a number"},
		{`{"affinity": {"preferred": [{"weight": 1.5}]}}`, ".affinity.preferred[0].weight: want a 32-bit integer"},
		{`{"affinity": {"required": [{"key": 1}]}}`, ".affinity.required[0].key: want a string"},
		{`{"annotations": {"a": 1}}`, ".annotations.a: want a string"},
		{`{"sidecars": [{"unprivileged": "yes"}]}`, ".sidecars[0].unprivileged: want a boolean"},
		{`{"deny": [{"rule": "r", "msg": "m"}]}`, ".deny[0].msg: unknown field"},
		{`{"sidecars": [{"env": [{"name": "A", "value": 1}]}]}`, ".sidecars[0].env[0].value: want a string"},
		{`{"sidecars": [{"env": [{"value": "1"}]}]}`, ".sidecars[0].env[0]: want a variable name"},
		{`{"sidecars": [{"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}]}]}`, `.sidecars[0].env[1]: variable "A" is set twice ("1" and "2")`},
		{`{"sidecars": [{"resources": {"limit": {}}}]}`, ".sidecars[0].resources.limit: unknown field"},
		{`{"sidecars": [{"resources": {"limits": {"memory": "2 GB"}}}]}`, `.sidecars[0].resources.limits.memory: "2 GB" is not a quantity`},
		{`{"sidecars": [{"resources": {"requests": {"cpu": true}}}]}`, ".sidecars[0].resources.requests.cpu: want a quantity"},
		{`{"sidecars": [{"volume": "data", "mode": "native"}, {"volume": "data", "mode": "container"}]}`, `.sidecars[1]: a second entry for volume "data" (the first is [0])`},
		{`{"volumeRewrites": [{"volume": "data", "hostPath": "/a"}, {"volume": "data", "hostPath": "/b"}]}`, `.volumeRewrites[1]: a second entry for volume "data"`},
		{`{"mountPropagation": [{"volume": "data", "mode": "HostToContainer"}, {"volume": "data", "mode": "None"}]}`, `.mountPropagation[1]: a second entry for volume "data"`},
		{`{"sidecars": [{"uniqueHostPath": "yes"}]}`, ".sidecars[0].uniqueHostPath: want a boolean"},
		{`{"sidecars": [{"dropVolumes": "cache"}]}`, ".sidecars[0].dropVolumes: want a list"},
		{`{"appPostStart": [{"mountPaths": ["/d"], "timeoutSeconds": 1}]}`, ".appPostStart[0]: want a container name"},
		{`{"appPostStart": [{"container": "a", "mountPaths": [], "timeoutSeconds": 1}]}`, `.appPostStart[0]: want at least one mount path for container "a"`},
		{`{"appPostStart": [{"container": "a", "mountPaths": ["/d"], "timeoutSeconds": 0}]}`, `.appPostStart[0]: want timeoutSeconds of at least 1 for container "a", got 0`},
		{`{"appPostStart": [{"container": "a", "mountPaths": ["d"], "timeoutSeconds": 1}]}`, `.appPostStart[0]: mount path "d" of container "a" is not absolute`},
		{`{"appPostStart": [{"container": "a", "mountPaths": ["/d"], "timeoutSeconds": 1}, {"container": "a", "mountPaths": ["/e"], "timeoutSeconds": 1}]}`, `.appPostStart[1]: a second entry for container "a"`},
	}
	for _, tt := range tests {
		_, err := DecodeMutating(parse(t, tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.doc, err, tt.want)
		}
	}
}

// Policies return sets; they decode in Rego's sort order whatever order the
// evaluator built them in, and null stands for an absent field.
func TestDecodeMutatingReadsSetsInSortOrder(t *testing.T) {
	warn := func(order ...string) ast.Value {
		s := ast.NewSet()
		for _, w := range order {
			s.Add(ast.StringTerm(w))
		}
		return ast.NewObject(
			ast.Item(ast.StringTerm("warnings"), ast.NewTerm(s)),
			ast.Item(ast.StringTerm("labels"), ast.NullTerm()),
		)
	}
	a, err := DecodeMutating(warn("b", "c", "a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeMutating(warn("c", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(a.Warnings, ",") != "a,b,c" || strings.Join(b.Warnings, ",") != "a,b,c" {
		t.Errorf("warnings %v and %v, want a,b,c for both", a.Warnings, b.Warnings)
	}
	if a.Labels != nil {
		t.Errorf("labels = %v, want none for null", a.Labels)
	}
}

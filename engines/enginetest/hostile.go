package enginetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/sluice-data/sluice/controller/helm"
)

// HostileLine ends every one-line string a hostile-strings test feeds in:
// quotes, a shell command substitution in both forms, a shell command
// separator, shell and kubelet variables and the kubelet's $$ escape, a
// Helm template action, a document separator, YAML comment, flow, anchor,
// alias and tag characters, a non-ASCII letter and a backslash. It has no
// control character, no "=" and no ".." (fields that refuse those are
// fed other strings).
const HostileLine = "\"'`$(id)` ; touch /tmp/pwned ${HOME} $(HOME) $$ {{ .Release.Name }} --- # x: - [y] {z} &a *a !t % é\\"

// Hostile is HostileLine after a line break and a whole manifest: what a
// string would carry to start an object of its own if a template spliced
// it into YAML text.
const Hostile = "\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: pwned, namespace: kube-system}\n" + HostileLine + "\t"

// Release is a rendered release decoded strictly, object by object.
type Release struct {
	// Objects are the decoded objects, by template file.
	Objects map[string]any
	// Strings are every string the objects hold, map keys included.
	Strings []string
	// Argv are each container's command and args as its process
	// receives them (after the kubelet's expansion, Effective).
	Argv [][]string
	// Env are each container's environment values as its process
	// receives them.
	Env []string
}

// DecodeRelease checks that the chart rendered exactly the templates of
// want (template file: kind), each one object of that kind (StatefulSet,
// DaemonSet, Job, Service or ConfigMap) in namespace, decoding strictly into
// its type; documents are read as the Helm kube client reads them. It
// returns the objects with their strings and argv.
func DecodeRelease(t testing.TB, out map[string]string, namespace string, want map[string]string) *Release {
	t.Helper()
	if got, wantKeys := helm.SortedKeys(out), slices.Sorted(maps.Keys(want)); !slices.Equal(got, wantKeys) {
		t.Fatalf("rendered templates %v, want %v", got, wantKeys)
	}
	r := &Release{Objects: map[string]any{}}
	for tpl, kind := range want {
		docs := documents(t, out[tpl])
		if len(docs) != 1 {
			t.Fatalf("%s renders %d objects, want one %s:\n%s", tpl, len(docs), kind, out[tpl])
		}
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(docs[0], &head); err != nil || head.Kind != kind || head.Metadata.Namespace != namespace {
			t.Fatalf("%s renders a %s in namespace %q (%v), want a %s in %q", tpl, head.Kind, head.Metadata.Namespace, err, kind, namespace)
		}
		var obj any
		var pod *corev1.PodSpec
		switch kind {
		case "StatefulSet":
			o := &appsv1.StatefulSet{}
			obj, pod = o, &o.Spec.Template.Spec
		case "DaemonSet":
			o := &appsv1.DaemonSet{}
			obj, pod = o, &o.Spec.Template.Spec
		case "Job":
			o := &batchv1.Job{}
			obj, pod = o, &o.Spec.Template.Spec
		case "Service":
			obj = &corev1.Service{}
		case "ConfigMap":
			obj = &corev1.ConfigMap{}
		default:
			t.Fatalf("DecodeRelease does not know kind %s", kind)
		}
		if err := yaml.UnmarshalStrict(docs[0], obj); err != nil {
			t.Fatalf("%s does not decode strictly into a %s: %v\n%s", tpl, kind, err, docs[0])
		}
		r.Objects[tpl] = obj
		r.Strings = append(r.Strings, StringsOf(t, obj)...)
		if pod != nil {
			for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
				e := Effective(c)
				r.Argv = append(r.Argv, append(slices.Clone(e.Command), e.Args...))
				for _, v := range e.Env {
					r.Env = append(r.Env, v.Value)
				}
			}
		}
	}
	return r
}

// Carries checks that some string of the objects holds each of want
// whole.
func (r *Release) Carries(t testing.TB, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(r.Strings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no field of the rendered objects carries %q whole", w)
		}
	}
}

// Runs checks that some container's process receives each of want whole
// within one argument.
func (r *Release) Runs(t testing.TB, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(r.Argv, func(argv []string) bool {
			return slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, w) })
		}) {
			t.Errorf("no container receives %q whole as an argument; argv: %q", w, r.Argv)
		}
	}
}

// Reads checks that some container's process receives each of want whole
// within one environment variable's value.
func (r *Release) Reads(t testing.TB, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(r.Env, func(v string) bool { return strings.Contains(v, w) }) {
			t.Errorf("no container receives %q whole in its environment: %q", w, r.Env)
		}
	}
}

// documents splits a manifest into its non-empty YAML documents as
// Kubernetes' YAML stream reader does.
func documents(t testing.TB, manifest string) [][]byte {
	t.Helper()
	var out [][]byte
	rd := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading manifest: %v\n%s", err, manifest)
		}
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			t.Fatalf("a document does not parse: %v\n%s", err, doc)
		}
		if v != nil {
			out = append(out, bytes.Clone(doc))
		}
	}
}

// StringsOf is every string in the objects (as JSON), map keys included,
// sorted.
func StringsOf(t testing.TB, objs ...any) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, o := range objs {
		data, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	sort.Strings(out)
	return out
}

package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestCulpritsOfMatchesWholeNames (audit N12): a compile error of
// ConfigMap ns/ab does not blame ns/a, nor one of ns/a.b blame ns/a.
func TestCulpritsOfMatchesWholeNames(t *testing.T) {
	cm := func(name, key string) corev1.ConfigMap {
		return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{key: ""}}
	}
	cms := []corev1.ConfigMap{cm("a", "guards.yaml"), cm("ab", "guards.yaml"), cm("a.b", "x.rego")}
	for msg, want := range map[string][]string{
		"ConfigMap ns/ab key guards.yaml: yaml: line 1: did not find expected node content": {"ns/ab"},
		"ConfigMap ns/a key guards.yaml: yaml: line 1":                                      {"ns/a"},
		"ConfigMap ns/a.b key x.rego: rego_parse_error":                                     {"ns/a.b"},
		"configmaps/ns/a.b/x.rego:3: rego_type_error":                                       {"ns/a.b"},
		"merging ConfigMap ns/a":                                                            {"ns/a"},
		"something else":                                                                    {"ns/a", "ns/ab", "ns/a.b"},
	} {
		if diff := cmp.Diff(want, names(culpritsOf(errors.New(msg), cms))); diff != "" {
			t.Errorf("culprits of %q (-want +got):\n%s", msg, diff)
		}
	}
}

// tightening is policy data that narrows the images every namespace may
// use: a platform deny rule.
const tightening = "validating:\n  guards:\n    \"*\":\n      imagePrefixes: [registry.example.com/]\n"

// imagePrefixes are the default imagePrefixes of the engine's active bundle.
func imagePrefixes(t *testing.T, engine *policy.Engine) string {
	t.Helper()
	guards := engine.Active().Bundle().Data["validating"].(map[string]any)["guards"].(map[string]any)["*"].(map[string]any)
	return fmt.Sprint(guards["imagePrefixes"])
}

// TestStartWithABrokenTighteningConfigMap (audit N12): a replica that
// starts while a tightening ConfigMap does not compile serves the version
// the running replicas still serve (its last good one, kept in its
// policies.LastGoodAnnotation by the load that last succeeded), instead of leaving
// the platform's rule out; it is ready (H4), and says so loudly: the
// compile error, an Event and the ConfigMap's status. Before, it started
// with the engines' default images allowed.
func TestStartWithABrokenTighteningConfigMap(t *testing.T) {
	ctx := context.Background()
	cm := policyConfigMap("tighten", map[string]string{"guards.yaml": tightening})
	c := fakeclient.NewClientBuilder().WithObjects(cm).Build()
	base, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	replica := func() (*Reloader, *policy.Engine, *events.FakeRecorder) {
		engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
		recorder := events.NewFakeRecorder(10)
		return &Reloader{Client: c, Engine: engine, Base: base, Namespaces: []string{"sluice-system"}, Recorder: recorder}, engine, recorder
	}
	stored := func() *corev1.ConfigMap {
		got := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			t.Fatal(err)
		}
		return got
	}

	running, runningEngine, _ := replica()
	if err := running.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := stored().Annotations[policies.LastGoodAnnotation]; got == "" || !strings.Contains(got, "registry.example.com/") {
		t.Fatalf("last good annotation %q after a whole load", got)
	}

	broken := stored()
	broken.Data["guards.yaml"] = "validating: [\n"
	if err := c.Update(ctx, broken); err != nil {
		t.Fatal(err)
	}
	if err := running.Reload(ctx); err == nil {
		t.Fatal("the broken ConfigMap loaded")
	}
	if got := imagePrefixes(t, runningEngine); got != "[registry.example.com/]" {
		t.Fatalf("the running replica serves imagePrefixes %s", got)
	}
	if got := stored().Annotations[policies.LastGoodAnnotation]; !strings.Contains(got, "registry.example.com/") {
		t.Fatalf("a rejected load changed the last good version to %q", got)
	}

	starting, startingEngine, recorder := replica()
	if err := starting.Reload(ctx); err == nil || !strings.Contains(err.Error(), "ConfigMap sluice-system/tighten") {
		t.Fatalf("the first load: %v, want the broken ConfigMap's error", err)
	}
	if !starting.Loaded() || !startingEngine.Ready() {
		t.Fatal("the starting replica is not ready")
	}
	if got := imagePrefixes(t, startingEngine); got != "[registry.example.com/]" {
		t.Errorf("the starting replica serves imagePrefixes %s, want the running replicas' [registry.example.com/]", got)
	}
	if s := stored().Annotations[policy.StatusAnnotation]; !strings.HasPrefix(s, "error: serving its last good version; ") {
		t.Errorf("status %q", s)
	}
	if e := <-recorder.Events; !strings.Contains(e, "PolicyRejected") || !strings.Contains(e, "started with the last good version of this ConfigMap") {
		t.Errorf("event %q", e)
	}
}

// TestLastGoodVersionOnlyOfWholeLoads: the last good version is written
// by a load of the whole bundle only, and dropped when the data grow too
// large to keep; a ConfigMap without one is left out at start, as before.
func TestLastGoodVersionOnlyOfWholeLoads(t *testing.T) {
	ctx := context.Background()
	huge := policyConfigMap("huge", map[string]string{"guards.yaml": tightening + "# " + strings.Repeat("x", policies.MaxLastGood) + "\n"})
	huge.Annotations = map[string]string{policies.LastGoodAnnotation: `{"guards.yaml":"a: 1\n"}`}
	c := fakeclient.NewClientBuilder().WithObjects(huge).Build()
	base, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	r := &Reloader{Client: c, Engine: policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery), Base: base,
		Namespaces: []string{"sluice-system"}, Recorder: events.NewFakeRecorder(10)}
	if err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	got := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(huge), got); err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Annotations[policies.LastGoodAnnotation]; ok {
		t.Errorf("a ConfigMap too large to keep keeps an older last good version %.40q", v)
	}
	if got.Annotations[policy.StatusAnnotation] != policies.StatusOK {
		t.Errorf("status %q", got.Annotations[policy.StatusAnnotation])
	}
}

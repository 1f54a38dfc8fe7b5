package webhook

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook/policy"
)

// policyConfigMap is a policy ConfigMap of namespace sluice-system.
func policyConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "sluice-system", Labels: map[string]string{policy.BundleLabel: "true"}}, Data: data}
}

// TestStartWithABrokenConfigMap (reliability audit H4): a replica that
// starts while a policy ConfigMap does not compile loads the defaults and
// the ConfigMaps that do, instead of staying unready until someone fixes
// it; the culprit is reported (status annotation, Event), the others are
// ok. Once a bundle is active, a broken change keeps it (the last good
// bundle), as before.
func TestStartWithABrokenConfigMap(t *testing.T) {
	ctx := context.Background()
	good := policyConfigMap("platform", map[string]string{"extra.rego": "package sluice.mutating\n\nimport rego.v1\n\nwarnings contains \"platform policy loaded\" if input.pod.metadata.name == \"probe\"\n"})
	broken := policyConfigMap("broken", map[string]string{"broken.rego": "package sluice.mutating\n\nwarnings contains msg if { msg := no_such_function(1) }\n"})
	c := fakeclient.NewClientBuilder().WithObjects(good, broken).Build()
	base, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	recorder := events.NewFakeRecorder(10)
	engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
	r := &Reloader{Client: c, Engine: engine, Base: base, Namespaces: []string{"sluice-system"}, Recorder: recorder}

	if err := r.Reload(ctx); err == nil || !strings.Contains(err.Error(), "broken.rego") {
		t.Fatalf("reload with a broken ConfigMap: %v, want its compile error", err)
	}
	if !r.Loaded() || !engine.Ready() {
		t.Fatal("the replica stays unready: nothing was loaded")
	}
	var platform, brokenLoaded bool
	for id := range engine.Active().Bundle().Modules {
		platform = platform || strings.Contains(id, "platform")
		brokenLoaded = brokenLoaded || strings.Contains(id, "broken")
	}
	if !platform || brokenLoaded {
		t.Errorf("active modules %v: want the platform ConfigMap's, not the broken one's", slices.Collect(maps.Keys(engine.Active().Bundle().Modules)))
	}
	status := func(cm *corev1.ConfigMap) string {
		got := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			t.Fatal(err)
		}
		return got.Annotations[policy.StatusAnnotation]
	}
	if s := status(broken); !strings.HasPrefix(s, "error: ") || !strings.Contains(s, "broken.rego") {
		t.Errorf("the broken ConfigMap's status %q", s)
	}
	if s := status(good); s != "ok" {
		t.Errorf("the platform ConfigMap's status %q, want ok", s)
	}
	if e := <-recorder.Events; !strings.Contains(e, "PolicyRejected") || !strings.Contains(e, "started without this ConfigMap") {
		t.Errorf("event %q", e)
	}
	// Reconciled again (the controller's path), the rejection is reported,
	// not returned for a retry: the same ConfigMaps would fail alike.
	if _, err := r.Reconcile(ctx, reconcile.Request{}); err != nil {
		t.Errorf("a reconcile with the broken ConfigMap still there: %v, want no error to retry", err)
	}
	if e := <-recorder.Events; !strings.Contains(e, "last good bundle stays active") {
		t.Errorf("event %q", e)
	}
}

// TestOnlyBundleInputsReload: the reloader's own status annotation does
// not trigger another compile of the same bundle; a change of data or
// labels does.
func TestOnlyBundleInputsReload(t *testing.T) {
	old := policyConfigMap("platform", map[string]string{"data.yaml": "a: 1\n"})
	annotated := old.DeepCopy()
	annotated.Annotations = map[string]string{policy.StatusAnnotation: "ok"}
	changed := old.DeepCopy()
	changed.Data["data.yaml"] = "a: 2\n"
	relabelled := old.DeepCopy()
	relabelled.Labels["team"] = "data"
	binary := old.DeepCopy()
	binary.BinaryData = map[string][]byte{"blob": {1}}
	for name, tc := range map[string]struct {
		cur  *corev1.ConfigMap
		want bool
	}{
		"status annotation": {annotated, false},
		"data":              {changed, true},
		"labels":            {relabelled, true},
		"binary data":       {binary, true},
	} {
		if got := bundleInputChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: tc.cur}); got != tc.want {
			t.Errorf("%s: reload %v, want %v", name, got, tc.want)
		}
	}
}

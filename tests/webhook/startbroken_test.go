package webhook_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestReplicaStartsWithABrokenPolicyConfigMap (reliability audit H4): the
// first load of a starting replica, reading its policy ConfigMaps from the
// real API server while one of them does not compile, loads the defaults
// and the ConfigMaps that compile (so /readyz, which waits for a loaded
// bundle, passes), and writes the culprit's error to its status annotation
// and ok to the others'. It used to load nothing, leaving the replica
// unready until the ConfigMap was fixed. (The replica here is the
// webhook's Reloader alone: a second webhook manager cannot run in this
// test process beside the first.)
func TestReplicaStartsWithABrokenPolicyConfigMap(t *testing.T) {
	ns := env.Namespace(t)
	labels := map[string]string{policy.BundleLabel: "true"}
	good := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: ns, Labels: labels},
		Data: map[string]string{"platform.rego": "package sluice.mutating\n\nimport rego.v1\n\nwarnings contains \"platform policy\" if input.pod.metadata.name == \"probe\"\n"}}
	broken := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "broken", Namespace: ns, Labels: labels},
		Data: map[string]string{"broken.rego": "package sluice.mutating\n\nwarnings contains msg if { msg := no_such_function(1) }\n"}}
	for _, cm := range []*corev1.ConfigMap{good, broken} {
		if err := env.Client.Create(ctxT(t), cm); err != nil {
			t.Fatal(err)
		}
	}
	base, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
	recorder := events.NewFakeRecorder(10)
	r := &webhook.Reloader{Client: env.Client, Engine: engine, Base: base, Namespaces: []string{ns}, Recorder: recorder}

	if err := r.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "broken.rego") {
		t.Fatalf("the first load: %v, want the broken module's compile error", err)
	}
	if !r.Loaded() || !engine.Ready() {
		t.Fatal("nothing loaded: the replica would stay unready")
	}
	var platform bool
	for id := range engine.Active().Bundle().Modules {
		if strings.Contains(id, "broken") {
			t.Errorf("the broken module %s is active", id)
		}
		platform = platform || strings.Contains(id, "platform")
	}
	if !platform {
		t.Error("the ConfigMap that compiles was left out")
	}
	if s := annotation(t, broken); !strings.HasPrefix(s, "error: ") || !strings.Contains(s, "broken.rego") {
		t.Errorf("the broken ConfigMap's status %q", s)
	}
	if s := annotation(t, good); s != "ok" {
		t.Errorf("the other ConfigMap's status %q, want ok", s)
	}
	if e := <-recorder.Events; !strings.Contains(e, "PolicyRejected") || !strings.Contains(e, "started without this ConfigMap") {
		t.Errorf("event %q", e)
	}
}

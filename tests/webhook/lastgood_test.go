package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestReplicaStartsWithTheLastGoodTighteningConfigMap (audit N12) through
// the real API server: a ConfigMap narrowing every namespace's images
// loads whole once (a running replica), then is broken; a replica that
// starts now serves its last good version, as the running replica does,
// rather than the engines' default images, is ready, and reports the
// ConfigMap (status, error). Before, it started without the ConfigMap:
// the platform's rule failed open on that replica. (The replicas are the
// webhook's Reloader alone, as in TestReplicaStartsWithABrokenPolicyConfigMap.)
func TestReplicaStartsWithTheLastGoodTighteningConfigMap(t *testing.T) {
	ns := env.Namespace(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "tighten", Namespace: ns, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"guards.yaml": "validating:\n  guards:\n    \"*\":\n      imagePrefixes: [registry.example.com/]\n"}}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	base, err := policy.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	replica := func() (*webhook.Reloader, *policy.Engine) {
		engine := policy.NewEngine(policies.MutatingQuery, policies.ValidatingQuery)
		return &webhook.Reloader{Client: env.Client, Engine: engine, Base: base, Namespaces: []string{ns}, Recorder: events.NewFakeRecorder(10)}, engine
	}
	imagePrefixes := func(engine *policy.Engine) string {
		guards := engine.Active().Bundle().Data["validating"].(map[string]any)["guards"].(map[string]any)["*"].(map[string]any)
		return fmt.Sprint(guards["imagePrefixes"])
	}

	running, runningEngine := replica()
	if err := running.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	stored := &corev1.ConfigMap{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), stored); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stored.Annotations[policies.LastGoodAnnotation], "registry.example.com/") {
		t.Fatalf("annotations after a whole load: %v", stored.Annotations)
	}
	stored.Data["guards.yaml"] = "validating: [\n"
	if err := env.Client.Update(ctxT(t), stored); err != nil {
		t.Fatal(err)
	}
	if err := running.Reload(context.Background()); err == nil {
		t.Fatal("the broken ConfigMap loaded")
	}

	starting, startingEngine := replica()
	if err := starting.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "ConfigMap "+ns+"/tighten") {
		t.Fatalf("the first load: %v, want the broken ConfigMap's error", err)
	}
	if !starting.Loaded() || !startingEngine.Ready() {
		t.Fatal("nothing loaded: the replica would stay unready")
	}
	if run, start := imagePrefixes(runningEngine), imagePrefixes(startingEngine); run != "[registry.example.com/]" || start != run {
		t.Errorf("imagePrefixes: running replica %s, starting replica %s; want both [registry.example.com/]", run, start)
	}
	if s := annotation(t, cm); !strings.HasPrefix(s, "error: serving its last good version; ") {
		t.Errorf("status %q", s)
	}
}

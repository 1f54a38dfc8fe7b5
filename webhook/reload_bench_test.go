package webhook

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/client-go/tools/events"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/webhook/policy"
)

// BenchmarkPolicyReload measures one reload of the policy bundle as the
// webhook does it when a policy ConfigMap changes: list the ConfigMaps,
// compile the default policies with a platform ConfigMap's data over them
// (each query partially evaluated, and made ready to specialise by input
// class, as the webhook's engine is by default), swap the engine's active
// bundle and annotate the ConfigMap. What it
// leaves out is the informer's delivery of the change, which the
// `sluice dev --demo` story observes end to end (its policy step).
func BenchmarkPolicyReload(b *testing.B) {
	ctx := context.Background()
	base, err := policy.DefaultBundle()
	if err != nil {
		b.Fatal(err)
	}
	cm := policyConfigMap("platform", map[string]string{"platform.yaml": "mutating:\n  affinity:\n    preferred:\n      - {name: fluid.io/node, weight: 80}\n"})
	c := fakeclient.NewClientBuilder().WithObjects(cm).Build()
	engine := newEngine(NewOptions())
	r := &Reloader{Client: c, Engine: engine, Base: base, Namespaces: []string{"sluice-system"}, Recorder: events.NewFakeRecorder(10)}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Reload(ctx); err != nil {
			b.Fatal(fmt.Errorf("reload: %w", err))
		}
	}
}

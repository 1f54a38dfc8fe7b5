package claim_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/policies"
)

func policyConfigMap(name, prefixes, status, lastGood string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "sluice-system", Name: name,
		Labels: map[string]string{policies.BundleLabel: "true"}, Annotations: map[string]string{}},
		Data: map[string]string{"guards.yaml": "validating: {guards: {" + name + ": {imagePrefixes: [" + prefixes + "]}}}\n"}}
	if status != "" {
		cm.Annotations[policies.StatusAnnotation] = status
	}
	if lastGood != "" {
		cm.Annotations[policies.LastGoodAnnotation] = lastGood
	}
	return cm
}

// TestDataServesTheLastGoodVersionOfARejectedConfigMap (audit N12): the
// controller judges with what the webhook serves: a rejected ConfigMap's
// last good data, or nothing of it when it has none.
func TestDataServesTheLastGoodVersionOfARejectedConfigMap(t *testing.T) {
	good := policyConfigMap("good", "a/", policies.StatusOK, "")
	restored := policyConfigMap("restored", "broken", policies.StatusRejected("does not compile"),
		`{"guards.yaml":"validating: {guards: {restored: {imagePrefixes: [tight/]}}}\n"}`)
	dropped := policyConfigMap("dropped", "broken", policies.StatusRejected("does not compile"), "")
	r := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(good, restored, dropped).Build()
	data, err := (&claim.PolicyTable{Reader: r, Namespaces: []string{"sluice-system"}, Default: map[string]any{}}).Data(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	guards := data["validating"].(map[string]any)["guards"].(map[string]any)
	prefixes := func(ns string) any {
		g, ok := guards[ns].(map[string]any)
		if !ok {
			return nil
		}
		return g["imagePrefixes"]
	}
	if p, _ := prefixes("good").([]any); len(p) != 1 || p[0] != "a/" {
		t.Errorf("an accepted ConfigMap: %v", prefixes("good"))
	}
	if p, _ := prefixes("restored").([]any); len(p) != 1 || p[0] != "tight/" {
		t.Errorf("a rejected ConfigMap with a last good version: %v, want its last good [tight/]", prefixes("restored"))
	}
	if p := prefixes("dropped"); p != nil {
		t.Errorf("a rejected ConfigMap without a last good version: %v, want it left out", p)
	}
}

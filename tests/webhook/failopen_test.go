package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestEvaluationErrorsFailOpenOnlyForPodsThatDidNotAsk (reliability audit
// H3), through the real API server: with a platform policy that compiles
// but fails at evaluation, a StatefulSet-like Pod (web-0, unlabelled,
// mounting a plain PVC) is admitted unmutated with a warning instead of
// refused by the fail-open webhook's answer, while a Pod that asked for
// injection is refused, never admitted half-done.
func TestEvaluationErrorsFailOpenOnlyForPodsThatDidNotAsk(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "fails-at-evaluation", Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data: map[string]string{"platform.rego": "package sluice.mutating\n\nimport rego.v1\n\n" +
			"warnings contains m if {\n\tinput.pod.metadata.namespace == \"" + ns + "\"\n\tm := sprintf(\"%v\", [to_number(input.pod.metadata.name)])\n}\n"},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	waitFor(t, policyLoad, "the policy loads", func() bool { return annotation(t, cm) == "ok" })
	c, warned := warnedClient(t)

	web := datasetPod("web-0", nil, "www-data")
	web.Namespace = ns
	if err := c.Create(ctxT(t), web, client.DryRunAll); err != nil {
		t.Fatalf("an unlabelled Pod while a policy fails at evaluation: %v", err)
	}
	if !strings.Contains(warned.String(), "admitted without Sluice's data-affinity optimisation") || !strings.Contains(warned.String(), "to_number") {
		t.Fatalf("warnings: %s", warned)
	}
	if web.Spec.Affinity != nil || web.Labels[datav1alpha1.LabelInjectionDone] != "" {
		t.Fatalf("the Pod was mutated: %+v %v", web.Spec.Affinity, web.Labels)
	}

	asked := datasetPod("reader", map[string]string{datav1alpha1.LabelServerlessInject: "true"}, "imagenet")
	asked.Namespace = ns
	// Until the webhook's cache shows the dataset PVC seeded above (the
	// policy's load, waited for, does not imply it), it refuses a Pod that
	// asked for injection for that reason (an internal error too, asking
	// for a retry): probe with dry runs until it is refused for the
	// policy's failure, then check the refusal.
	waitFor(t, 5*time.Second, "the webhook to judge the Pod by the failing policy", func() bool {
		err := env.Client.Create(ctxT(t), asked.DeepCopy(), client.DryRunAll)
		return apierrors.IsInternalError(err) && strings.Contains(err.Error(), "to_number")
	})
	if err := c.Create(ctxT(t), asked, client.DryRunAll); !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "to_number") {
		t.Fatalf("a Pod that asked for injection while a policy fails at evaluation: %v, want refused (internal error naming the builtin)", err)
	}
}

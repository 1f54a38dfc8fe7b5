package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// enforcementBundle creates a policy ConfigMap of policy data doc and
// waits until it is loaded.
func enforcementBundle(t *testing.T, name, doc string) {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"enforcement.yaml": doc},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), cm) })
	waitFor(t, policyLoad, "the enforcement bundle loads", func() bool { return annotation(t, cm) == "ok" })
}

// foreignImage is a runtime rule image-registry denies (its image is no
// engine's), labelled labels.
func foreignImage(ns, name string, labels map[string]string) *datav1alpha1.JuiceFSRuntime {
	rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	rt.Spec.JuiceFSVersion.Image = "registry.example.com/juicefs"
	rt.Labels = labels
	return rt
}

func ruleDecisions(t *testing.T, rule, mode, outcome string) float64 {
	return counter(t, "sluice_policy_rule_decisions_total", map[string]string{"rule": rule, "mode": mode, "outcome": outcome})
}

// TestEnforcementModesThroughTheAPIServer: a deny rule in warn mode admits
// with its message as an admission warning kubectl shows; in dryrun mode
// it admits silently and is counted; elsewhere it still denies, naming
// the rule, the field and how to get an exception. A mutation rule in
// dryrun leaves the Pod unchanged and is counted; a mutated Pod says what
// each rule injected.
func TestEnforcementModesThroughTheAPIServer(t *testing.T) {
	warned, dry, enforced := env.Namespace(t), env.Namespace(t), env.Namespace(t)
	enforcementBundle(t, "enforcement-modes-"+warned, fmt.Sprintf(`enforcement:
  rules:
    image-registry:
      namespaces: {%s: warn, %s: dryrun}
    affinity:
      namespaces: {%s: dryrun}
`, warned, dry, dry))
	c, warnings := warnedClient(t)

	if err := c.Create(ctxT(t), foreignImage(warned, "w", nil)); err != nil {
		t.Fatalf("image-registry in warn mode: %v", err)
	}
	if !strings.Contains(warnings.String(), "(rule image-registry, in warn mode: admitted") || !strings.Contains(warnings.String(), "spec.juicefsVersion.image") {
		t.Fatalf("warnings %q, want image-registry's denial", warnings)
	}

	before := ruleDecisions(t, "image-registry", "dryrun", "dryrun")
	seen := warnings.String()
	if err := c.Create(ctxT(t), foreignImage(dry, "d", nil)); err != nil {
		t.Fatalf("image-registry in dryrun mode: %v", err)
	}
	if got := warnings.String(); got != seen {
		t.Fatalf("dryrun warned: %q", strings.TrimPrefix(got, seen))
	}
	if after := ruleDecisions(t, "image-registry", "dryrun", "dryrun"); after != before+1 {
		t.Fatalf("dryrun decisions %v -> %v, want one more", before, after)
	}

	err := c.Create(ctxT(t), foreignImage(enforced, "e", nil))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule image-registry") ||
		!strings.Contains(err.Error(), "spec.juicefsVersion.image") || !strings.Contains(err.Error(), "enforcement.exceptions") {
		t.Fatalf("image-registry elsewhere: %v, want a denial naming rule, field and exceptions", err)
	}

	for _, ns := range []string{enforced, dry} {
		seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	}
	waitForCache()
	applied := datasetPod("trainer", serverful, "imagenet")
	applied.Namespace = enforced
	if err := env.Client.Create(ctxT(t), applied, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if applied.Spec.Affinity == nil || !strings.Contains(applied.Annotations[datav1alpha1.AnnotationMutations], "preferred fluid.io/s-"+enforced+"-imagenet (100)") ||
		!strings.Contains(applied.Annotations[datav1alpha1.AnnotationMutations], "affinity: ") ||
		!strings.Contains(applied.Annotations[datav1alpha1.AnnotationMutations], "mount-propagation: HostToContainer on volume data") {
		t.Fatalf("a mutated Pod: affinity %+v, annotations %v", applied.Spec.Affinity, applied.Annotations)
	}
	before = ruleDecisions(t, "affinity", "dryrun", "dryrun")
	unchanged := datasetPod("trainer", serverful, "imagenet")
	unchanged.Namespace = dry
	if err := env.Client.Create(ctxT(t), unchanged, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if unchanged.Spec.Affinity != nil || strings.Contains(unchanged.Annotations[datav1alpha1.AnnotationMutations], "affinity") {
		t.Fatalf("affinity in dryrun changed the Pod: %+v, %v", unchanged.Spec.Affinity, unchanged.Annotations)
	}
	if !strings.Contains(unchanged.Annotations[datav1alpha1.AnnotationMutations], "mount-propagation") {
		t.Fatalf("the other rules must still apply: %v", unchanged.Annotations)
	}
	if after := ruleDecisions(t, "affinity", "dryrun", "dryrun"); after != before+1 {
		t.Fatalf("affinity dryrun decisions %v -> %v, want one more", before, after)
	}
}

// TestExceptionsThroughTheAPIServer: an exception admits the objects of
// its namespace, its label selector or its names only, and only until it
// expires.
func TestExceptionsThroughTheAPIServer(t *testing.T) {
	ns, other := env.Namespace(t), env.Namespace(t)
	enforcementBundle(t, "enforcement-exceptions-"+ns, fmt.Sprintf(`enforcement:
  exceptions:
    legacy-%s:
      rules: [image-registry]
      namespaces: [%s]
      selector: {matchLabels: {legacy: "true"}}
      expires: %q
    named-%s:
      rules: [image-registry]
      namespaces: [%s]
      names: [mirror]
      reason: the mirror is being set up
`, ns, ns, time.Now().Add(time.Hour).UTC().Format(time.RFC3339), ns, other))

	if err := env.Client.Create(ctxT(t), foreignImage(ns, "selected", map[string]string{"legacy": "true"})); err != nil {
		t.Fatalf("an object the selector matches: %v", err)
	}
	if err := env.Client.Create(ctxT(t), foreignImage(ns, "unselected", nil)); !apierrors.IsForbidden(err) {
		t.Fatalf("an object the selector does not match: %v", err)
	}
	if err := env.Client.Create(ctxT(t), foreignImage(other, "selected", map[string]string{"legacy": "true"})); !apierrors.IsForbidden(err) {
		t.Fatalf("a matching object in another namespace: %v", err)
	}
	if err := env.Client.Create(ctxT(t), foreignImage(other, "mirror", nil)); err != nil {
		t.Fatalf("the named object: %v", err)
	}
	if err := env.Client.Create(ctxT(t), foreignImage(other, "not-mirror", nil)); !apierrors.IsForbidden(err) {
		t.Fatalf("another name: %v", err)
	}

	// Expiry: an exception that admits an object until its expiry, and the
	// same object's like refused a second after it.
	expiring := env.Namespace(t)
	expires := time.Now().Add(testenv.Stretch(5 * time.Second)).UTC().Truncate(time.Second)
	enforcementBundle(t, "enforcement-expiry-"+expiring, fmt.Sprintf(`enforcement:
  exceptions:
    expiring-%s:
      rules: [image-registry]
      namespaces: [%s]
      expires: %q
`, expiring, expiring, expires.Format(time.RFC3339)))
	err := env.Client.Create(ctxT(t), foreignImage(expiring, "before", nil))
	if time.Now().After(expires) {
		t.Fatalf("the test was too slow to check the exception before its expiry at %v", expires)
	}
	if err != nil {
		t.Fatalf("before the expiry: %v", err)
	}
	time.Sleep(time.Until(expires) + time.Second)
	err = env.Client.Create(ctxT(t), foreignImage(expiring, "after", nil))
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "rule image-registry") {
		t.Fatalf("after the expiry: %v, want image-registry's denial", err)
	}
}

// TestADeniedOperationIsAnEventOnItsDataset: the owners of a Dataset see
// the operations denied on it in its Events (kubectl describe); a dry run
// records none.
func TestADeniedOperationIsAnEventOnItsDataset(t *testing.T) {
	ns := env.Namespace(t)
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	dry := testobj.DataLoad("dry", ns, "imagenet")
	dry.Spec.Policy = datav1alpha1.OnEvent
	if err := env.Client.Create(ctxT(t), dry, client.DryRunAll); !apierrors.IsForbidden(err) {
		t.Fatalf("a dry-run OnEvent DataLoad: %v", err)
	}
	onEvent := testobj.DataLoad("on-event", ns, "imagenet")
	onEvent.Spec.Policy = datav1alpha1.OnEvent
	if err := env.Client.Create(ctxT(t), onEvent); !apierrors.IsForbidden(err) {
		t.Fatalf("an OnEvent DataLoad: %v", err)
	}
	ds := dataset(t, ns, "imagenet")
	denied := func() []eventsv1.Event {
		list := &eventsv1.EventList{}
		if err := env.Client.List(ctxT(t), list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		var found []eventsv1.Event
		for _, e := range list.Items {
			if e.Regarding.Kind == "Dataset" && e.Regarding.Name == "imagenet" && e.Regarding.UID == ds.UID && e.Reason == "OperationDenied" {
				found = append(found, e)
			}
		}
		return found
	}
	waitFor(t, 10*time.Second, "an OperationDenied Event on the Dataset", func() bool { return len(denied()) > 0 })
	time.Sleep(time.Second)
	if found := denied(); len(found) != 1 || found[0].Type != corev1.EventTypeWarning ||
		!strings.Contains(found[0].Note, "DataLoad "+ns+"/on-event denied") || !strings.Contains(found[0].Note, "rule operation-policy") {
		t.Fatalf("events %+v, want one Warning naming the DataLoad and its rule (none for the dry run)", found)
	}
}

package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// TestDeletionOfARuntimeOverBudgetDoesNotWedge (reliability audit H6 and
// M2), through the real API server and the validating webhook: scaling a
// runtime past its namespace's cache budget through the scale subresource
// (kubectl scale, an HPA) is denied like any other change of replicas; and
// a runtime left over a budget that was lowered after it was created is
// still deleted: removing its finalizer is an UPDATE that changes
// finalizers only, which no spec rule judges. Before, /scale went around
// the budget, and namespace-cache-budget then denied the finalizer's
// removal, so the runtime stayed Terminating.
func TestDeletionOfARuntimeOverBudgetDoesNotWedge(t *testing.T) {
	ns := env.Namespace(t)
	budget := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "budget-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"budget.yaml": "validating:\n  budgets:\n    " + ns + ": {MEM: 1Gi}\n"},
	}
	if err := env.Client.Create(ctxT(t), budget); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), budget) })
	waitFor(t, policyLoad, "the budget loads", func() bool { return annotation(t, budget) == "ok" })

	rt := testobj.JuiceFSRuntime("cache", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "512Mi"))
	rt.Finalizers = []string{"example.com/hold"} // stands in for the controller's
	if err := env.Client.Create(ctxT(t), rt); err != nil {
		t.Fatalf("a runtime within budget: %v", err)
	}
	over := testobj.JuiceFSRuntime("more", ns, 3, testobj.Level(datav1alpha1.Memory, "/dev/shm", "512Mi"))
	if err := env.Client.Create(ctxT(t), over, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "namespace-cache-budget") {
		t.Fatalf("the budget is not enforced, so the test proves nothing: %v", err)
	}
	// The webhook judges a /scale on the runtime as its cache stores it
	// (it reads the stored runtime there to apply the Scale to), and the
	// cache sees the runtime a moment after its create: probe with dry
	// runs until the scale is judged by the budget, then scale for real.
	waitFor(t, 5*time.Second, "the webhook to judge the runtime's /scale by the budget", func() bool {
		probe := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 4}}
		err := env.Client.SubResource("scale").Update(ctxT(t), rt.DeepCopy(), client.WithSubResourceBody(probe), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "namespace-cache-budget")
	})
	scale := &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 4}}
	if err := env.Client.SubResource("scale").Update(ctxT(t), rt, client.WithSubResourceBody(scale)); err == nil ||
		!strings.Contains(err.Error(), "namespace-cache-budget") {
		t.Fatalf("scaling past the budget through /scale: %v, want denied by namespace-cache-budget", err)
	}
	scale = &autoscalingv1.Scale{Spec: autoscalingv1.ScaleSpec{Replicas: 2}}
	if err := env.Client.SubResource("scale").Update(ctxT(t), rt, client.WithSubResourceBody(scale)); err != nil {
		t.Fatalf("scaling within the budget through /scale: %v", err)
	}

	// The platform lowers the budget below what the runtime uses.
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(budget), budget); err != nil {
		t.Fatal(err)
	}
	budget.Data["budget.yaml"] = "validating:\n  budgets:\n    " + ns + ": {MEM: 256Mi}\n"
	if err := env.Client.Update(ctxT(t), budget); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the lower budget applies", func() bool {
		probe := testobj.JuiceFSRuntime("probe", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Mi"))
		return env.Client.Create(ctxT(t), probe, client.DryRunAll) != nil
	})
	if err := env.Client.Delete(ctxT(t), rt); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(rt), rt); err != nil || rt.Spec.Replicas != 2 {
		t.Fatalf("the runtime before its finalizer goes: replicas %d, %v", rt.Spec.Replicas, err)
	}
	controllerutil.RemoveFinalizer(rt, "example.com/hold")
	if err := env.Client.Update(ctxT(t), rt); err != nil {
		t.Fatalf("removing the finalizer of a runtime over budget: %v", err)
	}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(rt), rt); !apierrors.IsNotFound(err) {
		t.Fatalf("the runtime is still there: %v", err)
	}
}

// TestForceDeleteReachesADatasetARuleNowDenies: a Dataset whose mount
// scheme a platform rule forbade after it was created is being deleted
// (Pods still use it); the data.sluice.io/force-delete annotation, an
// UPDATE of its metadata, is admitted, whereas the same annotation on a
// Dataset not being deleted is judged like any change and denied.
func TestForceDeleteReachesADatasetARuleNowDenies(t *testing.T) {
	ns := env.Namespace(t)
	ds := testobj.Dataset("old", ns, testobj.WithMounts("s3://bucket/old"))
	ds.Finalizers = []string{"example.com/hold"} // stands in for the controller's
	if err := env.Client.Create(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}
	alive := testobj.Dataset("alive", ns, testobj.WithMounts("s3://bucket/alive"))
	if err := env.Client.Create(ctxT(t), alive); err != nil {
		t.Fatal(err)
	}
	rule := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "schemes-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"schemes.yaml": "validating:\n  mountSchemes:\n    " + ns + ": [pvc]\n"},
	}
	if err := env.Client.Create(ctxT(t), rule); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), rule) })
	waitFor(t, policyLoad, "the rule loads", func() bool { return annotation(t, rule) == "ok" })
	force := func(d *datav1alpha1.Dataset) error {
		if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(d), d); err != nil {
			t.Fatal(err)
		}
		d.Annotations = map[string]string{datav1alpha1.AnnotationForceDelete: "true"}
		return env.Client.Update(ctxT(t), d)
	}
	if err := force(alive); err == nil || !strings.Contains(err.Error(), "mount-scheme") {
		t.Fatalf("annotating a Dataset the rule denies, not being deleted: %v, want denied by mount-scheme", err)
	}
	if err := env.Client.Delete(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}
	if err := force(ds); err != nil {
		t.Fatalf("the force-delete annotation on a Dataset being deleted: %v", err)
	}
	controllerutil.RemoveFinalizer(ds, "example.com/hold")
	if err := env.Client.Update(ctxT(t), ds); err != nil {
		t.Fatal(err)
	}
}

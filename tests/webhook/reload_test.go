package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/metrics"
	"github.com/sluice-data/sluice/webhook/policy"
)

// preferredWeight dry-run-creates a Pod without fluid labels that mounts the
// dataset PVC and returns the weight of its first preferred term (0 if none).
func preferredWeight(t *testing.T, ns, claim string) int32 {
	t.Helper()
	pod := datasetPod("probe", nil, claim)
	pod.Namespace = ns
	if err := env.Client.Create(ctxT(t), pod, client.DryRunAll); err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil || len(pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return 0
	}
	return pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight
}

// waitFor polls cond every 50ms until it holds or the timeout passes, and
// policyLoad bounds the wait for a policy ConfigMap a test creates to be
// loaded (its status annotation "ok"). The tests of this package create
// and delete such ConfigMaps concurrently, and every change recompiles
// the whole bundle, so on a loaded machine a load queues behind others
// (one waited over 30 s under -race beside other packages' tests). The
// reload latency is measured by benchmark (webhook BenchmarkPolicyReload),
// not by these waits, TestPolicyConfigMapHotReload's included.
const policyLoad = 15 * time.Second

// returns how long it took.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	timeout = testenv.Stretch(timeout)
	for !cond() {
		if time.Since(start) > timeout {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// TestPolicyConfigMapHotReload: a platform policy ConfigMap's data take
// effect without a restart, a module that does not compile is reported on
// the ConfigMap (annotation, Event) while the last good bundle serves, and
// deleting the ConfigMap restores the defaults. How long a reload took is
// logged; its latency is BenchmarkPolicyReload's to measure (a CI run's
// reload under -race beside other packages took over 12 s).
func TestPolicyConfigMapHotReload(t *testing.T) {
	ns := env.Namespace(t)
	okReloads, failedReloads := metrics.PolicyReloads.WithLabelValues("ok"), metrics.PolicyReloads.WithLabelValues("error")
	ok0, failed0, start := counterValue(t, okReloads), counterValue(t, failedReloads), time.Now()
	t.Cleanup(func() {
		if t.Failed() { // how busy the reloader was: a queue of compiles, or failing ones
			t.Logf("in %v: %v policy reloads ok, %v failed", time.Since(start).Round(time.Millisecond),
				counterValue(t, okReloads)-ok0, counterValue(t, failedReloads)-failed0)
		}
	})
	seedDataset(t, ns, "imagenet", datav1alpha1.BoundDatasetPhase)
	waitForCache()
	if w := preferredWeight(t, ns, "imagenet"); w != 0 {
		t.Fatalf("an unlabelled Pod got affinity (weight %d) under the default policy", w)
	}

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "platform", Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"affinity.yaml": "mutating:\n  affinity:\n    allDatasetPods: true\n    preferred: [{name: fluid.io/node, weight: 77}]\n"},
	}
	if err := env.Client.Create(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The ConfigMap's data reach every namespace's Pods: on a failure
		// half-way, wait until the defaults are back, so that the next
		// tests do not judge Pods under it (one did once, on CI).
		if err := env.Client.Delete(context.Background(), cm); err == nil && t.Failed() {
			deadline := time.Now().Add(testenv.Stretch(policyLoad))
			for preferredWeight(t, ns, "imagenet") != 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	took := waitFor(t, policyLoad, "policy data from the ConfigMap takes effect", func() bool { return preferredWeight(t, ns, "imagenet") == 77 })
	t.Logf("policy data took effect after %v", took)
	waitFor(t, policyLoad, "status annotation ok", func() bool { return annotation(t, cm) == "ok" })

	// A module that does not compile is rejected; the last good bundle stays.
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["broken.rego"] = "package sluice.mutating\n\nwarnings contains msg if { msg := no_such_function(1) }\n"
	if err := env.Client.Update(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, policyLoad, "status annotation reports the error", func() bool {
		s := annotation(t, cm)
		return strings.HasPrefix(s, "error: ") && strings.Contains(s, "broken.rego")
	})
	if w := preferredWeight(t, ns, "imagenet"); w != 77 {
		t.Fatalf("after a broken update the last good policy must stay active: weight %d, want 77", w)
	}
	waitFor(t, policyLoad, "a PolicyRejected event on the ConfigMap", func() bool { return hasEvent(t, cm, "PolicyRejected") })

	// Removing the ConfigMap restores the defaults.
	if err := env.Client.Delete(ctxT(t), cm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, policyLoad, "defaults restored", func() bool { return preferredWeight(t, ns, "imagenet") == 0 })
}

func annotation(t *testing.T, cm *corev1.ConfigMap) string {
	t.Helper()
	got := &corev1.ConfigMap{}
	if err := env.Client.Get(ctxT(t), client.ObjectKeyFromObject(cm), got); err != nil {
		t.Fatal(err)
	}
	return got.Annotations[policy.StatusAnnotation]
}

func hasEvent(t *testing.T, cm *corev1.ConfigMap, reason string) bool {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := env.Client.List(ctxT(t), list, client.InNamespace(cm.Namespace)); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		if e.Regarding.Name == cm.Name && e.Reason == reason {
			return true
		}
	}
	return false
}

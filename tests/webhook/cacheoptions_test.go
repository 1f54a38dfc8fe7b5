package webhook_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testobj"
	"github.com/sluice-data/sluice/webhook"
	"github.com/sluice-data/sluice/webhook/policy"
)

// optionCacheRuntime is a JuiceFSRuntime with a 1Gi memory tier whose
// workers' options name a cache directory and size of their own.
func optionCacheRuntime(name, ns, dir, size string) *datav1alpha1.JuiceFSRuntime {
	rt := testobj.JuiceFSRuntime(name, ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "1Gi"))
	rt.Spec.Worker.Options = map[string]string{"cache-dir": dir, "cache-size": size}
	return rt
}

// TestOptionCachesAreJudgedAndBudgeted is the audit's N5 proof through the
// real API server, as a ServiceAccount allowed only data.fluid.io objects
// in its namespace: a JuiceFSRuntime whose tier is a small /dev/shm but
// whose spec.worker.options put a 95 TiB cache in /var/lib/kubelet is
// denied, naming the option (rule tieredstore-path). Under a namespace
// budget of 4Gi of MEM, an option cache under an allowed prefix within
// the budget is admitted, one over it is denied naming cache-size (rule
// namespace-cache-budget), and the admitted runtime's option cache counts
// in what the namespace's next runtime is judged against.
func TestOptionCachesAreJudgedAndBudgeted(t *testing.T) {
	ns := env.Namespace(t)
	tenant := tenantClient(t, ns)

	err := tenant.Create(ctxT(t), optionCacheRuntime("kubelet", ns, "/var/lib/kubelet", "100000000"), client.DryRunAll)
	for _, want := range []string{`spec.worker.options["cache-dir"]: host path "/var/lib/kubelet" is not under an allowed prefix`, "(rule tieredstore-path)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a worker cache in /var/lib/kubelet through spec.worker.options: want a denial containing %q, got %v", want, err)
		}
	}

	budget := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "budget-" + ns, Namespace: webhook.DefaultNamespace, Labels: map[string]string{policy.BundleLabel: "true"}},
		Data:       map[string]string{"budget.yaml": "validating:\n  budgets:\n    " + ns + ": {MEM: 4Gi}\n"},
	}
	if err := env.Client.Create(ctxT(t), budget); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), budget) })
	waitFor(t, policyLoad, "the budget loads", func() bool { return annotation(t, budget) == "ok" })

	// 1Gi of tier and 2Gi of option cache (2048 MiB): 2Gi of 4Gi.
	within := optionCacheRuntime("within", ns, "/mnt/jfs", "2048")
	if err := tenant.Create(ctxT(t), within); err != nil {
		t.Fatalf("an option cache under /mnt within the budget: %v", err)
	}
	// 10Gi (10240 MiB) more: over the budget, the denial naming the option.
	err = tenant.Create(ctxT(t), optionCacheRuntime("over", ns, "/mnt/jfs", "10240"), client.DryRunAll)
	for _, want := range []string{`spec.worker.options["cache-size"]: namespace "` + ns + `" may use 4Gi of MEM cache`, "(rule namespace-cache-budget)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("an option cache over the budget: want a denial containing %q, got %v", want, err)
		}
	}
	// The admitted runtime counts with its option cache (2Gi, not the
	// tier's 1Gi): a 2.5Gi tier-only runtime no longer fits.
	waitFor(t, policyLoad, "the webhook's cache counts the option cache", func() bool {
		err := tenant.Create(ctxT(t), testobj.JuiceFSRuntime("tier", ns, 1, testobj.Level(datav1alpha1.Memory, "/dev/shm", "2560Mi")), client.DryRunAll)
		return err != nil && strings.Contains(err.Error(), "its other runtimes use 2147483648 bytes")
	})
}

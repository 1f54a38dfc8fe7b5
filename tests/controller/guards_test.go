package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/policies"
	"github.com/sluice-data/sluice/tests/support/testenv"
	"github.com/sluice-data/sluice/tests/support/testobj"
)

// TestGuardsHoldWithoutTheWebhook is issue 30 item 6 (audit N6): a
// runtime stored while the validating webhook was unreachable (here no
// webhook runs at all) whose privileged FUSE would run a command when its
// JVM runs out of memory, and a Dataset mounting local:///etc, are not
// deployed: the runtime's Ready condition says InvalidSpec, naming each
// field and rule, and no workload is installed. Once the platform's
// policy data admits the values for the namespace, the same runtime
// installs.
func TestGuardsHoldWithoutTheWebhook(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	ds := testobj.Dataset("escape", ns, testobj.WithMounts("local:///etc"))
	if err := env.Client.Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Name: "escape", Namespace: ns}, Spec: datav1alpha1.AlluxioRuntimeSpec{
		Replicas: 1, TieredStore: datav1alpha1.TieredStore{Levels: []datav1alpha1.Level{testobj.Level(datav1alpha1.Memory, "/dev/shm", "2Gi")}}}}
	rt.Spec.Fuse.JvmOptions = []string{"-Xmx1G", "-XX:OnOutOfMemoryError=sh -c x"}
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "escape"}
	var c *metav1.Condition
	eventually(t, 20*time.Second, "the runtime is refused by the guards", func() bool {
		if env.Client.Get(ctx, key, rt) != nil {
			return false
		}
		c = meta.FindStatusCondition(rt.Status.Conditions, "Ready")
		return c != nil && c.Reason == "InvalidSpec"
	})
	for _, want := range []string{
		`spec.fuse.jvmOptions[1]: "-XX:OnOutOfMemoryError=sh -c x" is not allowed in the privileged Alluxio FUSE container`, "(rule privileged-container)",
		`spec.mounts[0].mountPoint: local path "/etc" is not under an allowed prefix`, "(rule local-mount)",
	} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("Ready message %q does not say %q", c.Message, want)
		}
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "escape-master"}, &appsv1.StatefulSet{}); err == nil {
		t.Fatal("masters were installed for a spec the guards refuse")
	}

	allow := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: policyNamespace, Name: "allow-" + ns, Labels: map[string]string{policies.BundleLabel: "true"}},
		Data:       map[string]string{"guards.yaml": "validating:\n  guards:\n    " + ns + ":\n      jvmOptions: [\"-Xmx1G\", \"-XX:OnOutOfMemoryError=.*\"]\n      localPaths: [/etc]\n      reservedHostPaths: []\n"},
	}
	if err := env.Client.Create(ctx, allow); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), allow) })
	eventually(t, 40*time.Second, "the runtime installs once the platform's data admits it", func() bool {
		return env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "escape-master"}, &appsv1.StatefulSet{}) == nil
	})
}

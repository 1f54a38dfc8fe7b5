package controller_test

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestAForgedReleaseRecordReachesNoOtherNamespace: Helm keeps a release's
// records in Secrets of the runtime's namespace, which its users may
// edit. A record edited to claim an engine object of another namespace
// (a ConfigMap labelled as the other tenant's runtime's) would have Helm,
// with the controller's identity, delete it on the next upgrade (it is
// not in the new manifest) and on uninstall. It survives both: the
// controller drops what the guard refuses from the stored records first.
func TestAForgedReleaseRecordReachesNoOtherNamespace(t *testing.T) {
	t.Parallel()
	ns, other := env.Namespace(t), env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	victim := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "their-config", Namespace: other, Labels: map[string]string{
		"app.kubernetes.io/managed-by": "Helm", "fluid.io/dataset": other + "-theirs",
	}}, Data: map[string]string{"k": "v"}}
	if err := env.Client.Create(ctx, victim); err != nil {
		t.Fatal(err)
	}
	rt, sts := boundRuntime(t, ns, "logs"), &appsv1.StatefulSet{}

	releases := releaseStorage(t, ns)
	deployed, err := releases.Last("logs")
	if err != nil {
		t.Fatal(err)
	}
	deployed.Manifest += fmt.Sprintf("\n---\n# Source: juicefs/templates/config.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: their-config\n  namespace: %s\n", other)
	if err := releases.Update(deployed); err != nil {
		t.Fatal(err)
	}
	survives := func(when string) {
		t.Helper()
		got := &corev1.ConfigMap{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: other, Name: victim.Name}, got); err != nil || !got.DeletionTimestamp.IsZero() {
			t.Fatalf("%s: namespace %s's ConfigMap: %v (deleting: %v)", when, other, err, got.DeletionTimestamp)
		}
	}

	edit(t, rt, func(rt *datav1alpha1.JuiceFSRuntime) { rt.Spec.Replicas = 2 })
	eventually(t, 60*time.Second, "the workers are upgraded to 2 replicas", func() bool {
		last, err := releases.Last("logs")
		return err == nil && last.Version > deployed.Version && env.Client.Get(ctx, key("logs-worker"), sts) == nil && *sts.Spec.Replicas == 2
	})
	survives("after the upgrade")
	if recorded, err := releases.Get("logs", deployed.Version); err != nil || recorded.Manifest == deployed.Manifest {
		t.Fatalf("revision %d still holds the forged object (%v)", deployed.Version, err)
	}

	// Forge it again into the new revision, then delete the runtime.
	last, err := releases.Last("logs")
	if err != nil {
		t.Fatal(err)
	}
	last.Manifest += fmt.Sprintf("\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: their-config\n  namespace: %s\n", other)
	if err := releases.Update(last); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(ctx, rt); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the runtime is deleted and its release uninstalled", func() bool {
		_, err := releases.Last("logs")
		return apierrors.IsNotFound(env.Client.Get(ctx, key("logs"), rt)) && err != nil
	})
	survives("after the uninstall")
}

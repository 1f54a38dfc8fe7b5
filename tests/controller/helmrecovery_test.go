package controller_test

import (
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// releaseStorage is Helm's release storage of namespace ns (its Secrets),
// as the controller reads and writes it.
func releaseStorage(t *testing.T, ns string) *storage.Storage {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return storage.Init(driver.NewSecrets(cs.CoreV1().Secrets(ns)))
}

// TestAbandonedUpgradeRecovers: a release record left pending-upgrade by
// a controller killed in the middle of an upgrade (written here into
// Helm's Secret storage, an hour old) does not hold the runtime for ever:
// the next spec change marks it failed, rolls back and upgrades, and the
// workers get the new spec.
func TestAbandonedUpgradeRecovers(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	rt, sts := boundRuntime(t, ns, "logs"), &appsv1.StatefulSet{}

	releases := releaseStorage(t, ns)
	deployed, err := releases.Last("logs")
	if err != nil || deployed.Info.Status != release.StatusDeployed {
		t.Fatalf("the runtime's release: %+v %v", deployed, err)
	}
	abandoned := *deployed
	abandoned.Version++
	abandoned.Info = &release.Info{Status: release.StatusPendingUpgrade, Description: "Preparing upgrade",
		FirstDeployed: deployed.Info.FirstDeployed, LastDeployed: helmtime.Time{Time: time.Now().Add(-time.Hour)}}
	if err := releases.Create(&abandoned); err != nil {
		t.Fatal(err)
	}

	edit(t, rt, func(rt *datav1alpha1.JuiceFSRuntime) { rt.Spec.Replicas = 2 })
	eventually(t, 60*time.Second, "the abandoned upgrade is recovered and the workers upgraded to 2 replicas", func() bool {
		last, err := releases.Last("logs")
		return err == nil && last.Version > abandoned.Version && last.Info.Status == release.StatusDeployed &&
			env.Client.Get(ctx, key("logs-worker"), sts) == nil && *sts.Spec.Replicas == 2
	})
	recorded, err := releases.Get("logs", abandoned.Version)
	if err != nil || recorded.Info.Status != release.StatusFailed {
		t.Fatalf("the abandoned revision %d afterwards: %+v %v, want failed", abandoned.Version, recorded.Info, err)
	}
}

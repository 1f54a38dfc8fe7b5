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
	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/tests/testobj"
)

// TestAbandonedUpgradeRecovers: a release record left pending-upgrade by
// a controller killed in the middle of an upgrade (written here into
// Helm's Secret storage, an hour old) does not hold the runtime for ever:
// the next spec change marks it failed, rolls back and upgrades, and the
// workers get the new spec.
func TestAbandonedUpgradeRecovers(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	if err := env.Client.Create(ctx, testobj.Dataset("logs", ns, testobj.WithMounts("juicefs:///logs"))); err != nil {
		t.Fatal(err)
	}
	rt := testobj.JuiceFSRuntime("logs", ns, 1, testobj.Level(datav1alpha1.SSD, "/mnt/cache", "10Gi"))
	if err := env.Client.Create(ctx, rt); err != nil {
		t.Fatal(err)
	}
	sts := &appsv1.StatefulSet{}
	eventually(t, 20*time.Second, "Helm installs the workers", func() bool { return env.Client.Get(ctx, key("logs-worker"), sts) == nil })
	markReady(t, sts)
	eventually(t, 20*time.Second, "the runtime is Ready", func() bool {
		return env.Client.Get(ctx, key("logs"), rt) == nil && rt.Status.WorkerPhase == datav1alpha1.RuntimePhaseReady
	})

	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	releases := storage.Init(driver.NewSecrets(cs.CoreV1().Secrets(ns)))
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

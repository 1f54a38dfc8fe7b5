package controller_test

import (
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/operation"
	"github.com/sluice-data/sluice/tests/support/testenv"
)

// TestAnOperationLeavesTheReleaseOfARuntimeOfItsName (reliability audit
// N3): runtimes x-loader and y-loader serve, each with its Helm release of
// that name, the very name of DataLoad x's and DataLoad y's releases. The
// DataLoads fail with ReleaseConflict (before: "release x-loader is
// installed", then WorkloadMissing), and neither the Cron one's end
// (which removes a Cron operation's release) nor the deletion of the
// other uninstalls the runtimes' releases or their workers; before, both
// did.
func TestAnOperationLeavesTheReleaseOfARuntimeOfItsName(t *testing.T) {
	t.Parallel()
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	boundRuntime(t, ns, "x-loader")
	boundRuntime(t, ns, "y-loader")

	cron := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x"}}
	cron.Spec.Dataset.Name, cron.Spec.Policy, cron.Spec.Schedule = "x-loader", datav1alpha1.Cron, "*/5 * * * *"
	once := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "y"}}
	once.Spec.Dataset.Name = "y-loader"
	for _, dl := range []*datav1alpha1.DataLoad{cron, once} {
		if got := operation.ReleaseName(datav1alpha1.DataLoadKind, dl.Name); got != dl.Spec.Dataset.Name {
			t.Fatalf("DataLoad %s's release is %s, not the runtime's", dl.Name, got)
		}
		if err := env.Client.Create(ctx, dl); err != nil {
			t.Fatal(err)
		}
	}
	for _, dl := range []*datav1alpha1.DataLoad{cron, once} {
		eventually(t, 30*time.Second, "DataLoad "+dl.Name+" fails", func() bool {
			return env.Client.Get(ctx, client.ObjectKeyFromObject(dl), dl) == nil && dl.Status.Phase == datav1alpha1.PhaseFailed
		})
		if c := meta.FindStatusCondition(dl.Status.Conditions, operation.ConditionFailed); c == nil || c.Reason != operation.ReasonReleaseConflict {
			t.Errorf("DataLoad %s failed with %+v, want reason %s", dl.Name, c, operation.ReasonReleaseConflict)
		}
		if c := meta.FindStatusCondition(dl.Status.Conditions, operation.ConditionReleaseInstalled); c != nil && c.Status == metav1.ConditionTrue {
			t.Errorf("DataLoad %s says its release is installed: %+v", dl.Name, c)
		}
	}
	if err := env.Client.Delete(ctx, once); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "DataLoad y is deleted", func() bool {
		return env.Client.Get(ctx, client.ObjectKeyFromObject(once), &datav1alpha1.DataLoad{}) != nil
	})
	// The Cron operation that failed for good is reconciled again (every
	// reconcile of it removed its release, before).
	edit(t, cron, func(dl *datav1alpha1.DataLoad) { dl.Annotations = map[string]string{"poke": "1"} })
	time.Sleep(testenv.Stretch(2 * time.Second)) // two re-reads (cache refresh: 1 s)

	releases := releaseStorage(t, ns)
	ctx = testenv.Context(t)
	for _, name := range []string{"x-loader", "y-loader"} {
		rel, err := releases.Last(name)
		if err != nil || rel.Info.Status != release.StatusDeployed || rel.Chart.Metadata.Name != "sluice-juicefs" {
			t.Errorf("runtime %s's release afterwards: %+v %v, want its engine release deployed", name, rel, err)
			continue
		}
		if err := env.Client.Get(ctx, key(name+"-worker"), &appsv1.StatefulSet{}); err != nil {
			t.Errorf("runtime %s's workers afterwards: %v", name, err)
		}
	}
}

package operation

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/claim"
	"github.com/sluice-data/sluice/controller/helm"
	"github.com/sluice-data/sluice/engines"
	"github.com/sluice-data/sluice/engines/fake"
)

// TestIdleCronHoldsNothingOnceInstalled: the reconcile that installs a
// Cron operation's CronJob reports it Idle, holding nothing, and so it
// must release a claim made at admission at once, not only once the cache
// shows the CronJob (until then, the status said Idle while the Dataset
// was held).
func TestIdleCronHoldsNothingOnceInstalled(t *testing.T) {
	ctx := ctrl.LoggerInto(context.Background(), ctrl.Log)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d"},
		Status: datav1alpha1.DatasetStatus{Phase: datav1alpha1.BoundDatasetPhase,
			Runtimes:     []datav1alpha1.Runtime{{Name: "d", Namespace: "n", Type: "fake"}},
			OperationRef: map[string]string{"DataLoad": "nightly"}}}
	rt := &datav1alpha1.AlluxioRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "d"}}
	dl := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "nightly"},
		Spec: datav1alpha1.DataLoadSpec{Dataset: datav1alpha1.TargetDataset{Name: "d"}, Policy: datav1alpha1.Cron, Schedule: "0 2 * * *"}}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(ds, rt, dl).
		WithStatusSubresource(&datav1alpha1.Dataset{}, &datav1alpha1.DataLoad{}).Build()
	hc := helm.NewMemoryClient("n", nil)
	r := &Reconciler{Kind: datav1alpha1.DataLoadKind, Client: c, Live: c, Engines: []engines.Engine{fake.Engine{}},
		Helm: func(string) (*helm.Client, error) { return hc, nil }, Conflicts: claim.Fixed{"DataLoad": {"DataLoad"}},
		now: func() time.Time { return now }}
	r.claimer = &claim.Claimer{Client: c, Attempts: 1}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(dl)}); err != nil {
		t.Fatal(err)
	}
	if rel, err := hc.Latest(ReleaseName(datav1alpha1.DataLoadKind, dl.Name)); err != nil || rel == nil {
		t.Fatalf("the CronJob's release: %v, %v; want it installed", rel, err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(dl), dl); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(dl.Status.Conditions, ConditionDatasetClaimed)
	if cond == nil || cond.Reason != ReasonIdle {
		t.Fatalf("DatasetClaimed = %+v, want Idle", cond)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ds), ds); err != nil {
		t.Fatal(err)
	}
	if holders := claim.Holders(ds); len(holders) != 0 {
		t.Fatalf("the Dataset is held by %v while the operation reports Idle, holding nothing", holders)
	}
}

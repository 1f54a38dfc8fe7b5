package operation

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestStaleReconcileDoesNotRegress: a reconcile that read the operation
// from a cache behind the controller's last write (the operation is
// Complete, the reconcile saw it Executing) writes nothing over it and asks
// to be requeued; one whose read was behind only in metadata (same phase)
// writes its status over the stored one.
func TestStaleReconcileDoesNotRegress(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	stored := &datav1alpha1.DataLoad{ObjectMeta: metav1.ObjectMeta{Namespace: "n", Name: "x"}}
	c := fakeclient.NewClientBuilder().WithScheme(scheme.New()).WithObjects(stored).WithStatusSubresource(&datav1alpha1.DataLoad{}).Build()
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), stored); err != nil {
		t.Fatal(err)
	}
	stale := stored.DeepCopy()
	stale.Status.Phase = datav1alpha1.PhaseExecuting
	stored.Status.Phase = datav1alpha1.PhaseComplete
	if err := c.Status().Update(ctx, stored); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Kind: datav1alpha1.DataLoadKind, Client: c, Live: c}

	s := &scope{op: stale, obs: observations{now: now, run: &run{name: "x-loader", executing: true}}}
	skipped, err := r.writeStatus(ctx, s)
	got := &datav1alpha1.DataLoad{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), got); err != nil {
		t.Fatal(err)
	}
	if err != nil || !skipped || got.Status.Phase != datav1alpha1.PhaseComplete {
		t.Fatalf("skipped %v (%v), phase %q; want the Complete status kept and a requeue", skipped, err, got.Status.Phase)
	}

	behindInMetadata := got.DeepCopy()
	got.Labels = map[string]string{"touched": "yes"}
	if err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	s = &scope{op: behindInMetadata, obs: observations{now: now, claim: isFalse(ReasonReleased, "released")}}
	if skipped, err := r.writeStatus(ctx, s); err != nil || skipped {
		t.Fatalf("skipped %v (%v); want the write made over the stored status", skipped, err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Reason != ReasonReleased {
		t.Fatalf("conditions %v", got.Status.Conditions)
	}
}

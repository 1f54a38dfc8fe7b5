package dataset

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sluicescheme "github.com/sluice-data/sluice/api/scheme"
	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
)

// TestNotBoundNeverReplacesAConcurrentBound: the reconcile read the
// Dataset without a phase, then the runtime controller bound it; the
// NotBound patch is refused by its precondition, and on the fresh read it
// no longer applies.
func TestNotBoundNeverReplacesAConcurrentBound(t *testing.T) {
	ctx := context.Background()
	ds := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "n"}}
	c := fake.NewClientBuilder().WithScheme(sluicescheme.New()).WithObjects(ds).WithStatusSubresource(&datav1alpha1.Dataset{}).Build()
	read := &datav1alpha1.Dataset{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ds), read); err != nil {
		t.Fatal(err)
	}
	bound := read.DeepCopy()
	bound.Status.Phase = datav1alpha1.BoundDatasetPhase
	if err := c.Status().Update(ctx, bound); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: c}
	if err := r.ensurePhase(ctx, read); err != nil {
		t.Fatal(err)
	}
	got := &datav1alpha1.Dataset{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(ds), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != datav1alpha1.BoundDatasetPhase {
		t.Fatalf("phase = %q, want the concurrent Bound kept", got.Status.Phase)
	}

	// Without a concurrent write, the phase is filled.
	fresh := &datav1alpha1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "n"}}
	if err := c.Create(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if err := r.ensurePhase(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(fresh), got); err != nil {
		t.Fatal(err)
	}
	if got.Status.Phase != datav1alpha1.NotBoundDatasetPhase {
		t.Fatalf("phase = %q, want NotBound", got.Status.Phase)
	}
}

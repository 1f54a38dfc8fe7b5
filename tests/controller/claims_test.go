package controller_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	datav1alpha1 "github.com/sluice-data/sluice/api/v1alpha1"
	"github.com/sluice-data/sluice/controller/dataops"
	"github.com/sluice-data/sluice/tests/testenv"
	"github.com/sluice-data/sluice/tests/testobj"
)

func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func holder(t *testing.T, ns, name string) string {
	t.Helper()
	ds := &datav1alpha1.Dataset{}
	if err := env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ns, Name: name}, ds); err != nil {
		t.Fatal(err)
	}
	return ds.Status.OperationRef["DataLoad"]
}

func claimed(t *testing.T, ns, name string) *metav1.Condition {
	t.Helper()
	dl := &datav1alpha1.DataLoad{}
	if err := env.Client.Get(testenv.Context(t), types.NamespacedName{Namespace: ns, Name: name}, dl); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(dl.Status.Conditions, dataops.ConditionDatasetClaimed)
}

// TestOperationsAdmittedWithoutClaims covers operations that got in while
// the validating webhook was unavailable (no webhook runs here): the
// controller claims for the first, keeps the second Pending with a
// condition naming the holder, and hands the Dataset over once the first
// completes; a deleted holder is released after the grace period.
func TestOperationsAdmittedWithoutClaims(t *testing.T) {
	ns := env.Namespace(t)
	ctx := testenv.Context(t)
	if err := testobj.SeedDataset(ctx, env.Client, ns, "imagenet", datav1alpha1.BoundDatasetPhase); err != nil {
		t.Fatal(err)
	}
	first, second := testobj.DataLoad("first", ns, "imagenet"), testobj.DataLoad("second", ns, "imagenet")
	if err := env.Client.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the controller claims for the first DataLoad", func() bool {
		c := claimed(t, ns, "first")
		return holder(t, ns, "imagenet") == "first" && c != nil && c.Status == metav1.ConditionTrue
	})
	if err := env.Client.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the second DataLoad waits, naming the holder", func() bool {
		c := claimed(t, ns, "second")
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == dataops.ReasonDatasetHeld
	})
	if c := claimed(t, ns, "second"); c.Message != "dataset "+ns+"/imagenet is held by DataLoad first; one operation of a conflicting kind runs at a time; waiting" {
		t.Fatalf("condition message = %q", c.Message)
	}
	dl := &datav1alpha1.DataLoad{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(second), dl); err != nil {
		t.Fatal(err)
	}
	if dl.Status.Phase != datav1alpha1.PhasePending {
		t.Fatalf("waiting operation phase = %q, want Pending", dl.Status.Phase)
	}

	// The first completes: the Dataset is released and the second claims it.
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(first), dl); err != nil {
		t.Fatal(err)
	}
	dl.Status.Phase = datav1alpha1.PhaseComplete
	if err := env.Client.Status().Update(ctx, dl); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the second DataLoad takes over", func() bool {
		c := claimed(t, ns, "second")
		return holder(t, ns, "imagenet") == "second" && c != nil && c.Status == metav1.ConditionTrue
	})

	// Deleting the holder releases the Dataset once its claim is older than the grace period.
	if err := env.Client.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	eventually(t, grace+10*time.Second, "the deleted holder is released", func() bool { return holder(t, ns, "imagenet") == "" })
}
